/* fl-options.c: FlLockOptions, a small boxed value
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The etcd options live here in every build, whether the etcd module is installed or not:
 * they only store values, which the module reads (docs/backends.md, "Options"), so that
 * libfl-1.so exports the same symbols with the backend built or not.
 */
#include "config.h"

#include "fl-options-private.h"

G_DEFINE_BOXED_TYPE (FlLockOptions, fl_lock_options, fl_lock_options_copy, fl_lock_options_free)

static const FlLockOptions default_options = {
  .timeout_ms = FL_DEFAULT_TIMEOUT_MS,
  .stale_after_ms = FL_DEFAULT_STALE_AFTER_MS,
  .backoff_min_ms = FL_DEFAULT_BACKOFF_MIN_MS,
  .backoff_max_ms = FL_DEFAULT_BACKOFF_MAX_MS,
  .create_dirs = FALSE,
  .lease_ttl_s = FL_DEFAULT_LEASE_TTL_S,
};

const FlLockOptions *
_fl_lock_options_or_default (const FlLockOptions *options)
{
  return options != NULL ? options : &default_options;
}

/**
 * fl_lock_options_new:
 *
 * New options with the defaults, the Node module's; free them with fl_lock_options_free().
 *
 * Returns: (transfer full): options with the defaults: wait 30 s, a lock whose content is not a
 *   PID is stale after 30 s, missing directories are an error, back off between 1 ms and 1 s
 *
 * Since: 0.1
 */
FlLockOptions *
fl_lock_options_new (void)
{
  return g_memdup2 (&default_options, sizeof default_options);
}

/**
 * fl_lock_options_copy:
 * @self: options
 *
 * A copy of @self, its etcd file names included.
 *
 * Returns: (transfer full): the copy; free it with fl_lock_options_free()
 *
 * Since: 0.1
 */
FlLockOptions *
fl_lock_options_copy (const FlLockOptions *self)
{
  FlLockOptions *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_memdup2 (self, sizeof *self);
  copy->etcd_ca_file = g_strdup (self->etcd_ca_file);
  copy->etcd_cert_file = g_strdup (self->etcd_cert_file);
  copy->etcd_key_file = g_strdup (self->etcd_key_file);
  copy->etcd_user = g_strdup (self->etcd_user);
  copy->etcd_password_file = g_strdup (self->etcd_password_file);
  return copy;
}

/**
 * fl_lock_options_free:
 * @self: (nullable): options, or %NULL
 *
 * Frees options made by fl_lock_options_new() or fl_lock_options_copy(). %NULL is allowed.
 *
 * Since: 0.1
 */
void
fl_lock_options_free (FlLockOptions *self)
{
  if (self == NULL)
    return;
  g_free (self->etcd_ca_file);
  g_free (self->etcd_cert_file);
  g_free (self->etcd_key_file);
  g_free (self->etcd_user);
  g_free (self->etcd_password_file);
  g_free (self);
}

/**
 * fl_lock_options_set_timeout_ms:
 * @timeout_ms: how long fl_lock_acquire() waits, in milliseconds: 0 means one try, as
 *   fl_lock_try_acquire(); %FL_TIMEOUT_INFINITE (or any negative value) means forever; so
 *   does a timeout too long for the clock to count to (%G_MAXINT64 included): every value of
 *   the type is valid and none overflows
 *
 * Sets how long fl_lock_acquire() and fl_with_lock() wait for a held lock before failing
 * with %FL_ERROR_TIMEOUT. The default is %FL_DEFAULT_TIMEOUT_MS.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_timeout_ms (FlLockOptions *self,
                                gint64         timeout_ms)
{
  g_return_if_fail (self != NULL);

  self->timeout_ms = timeout_ms;
}

/**
 * fl_lock_options_get_timeout_ms:
 * @self: (nullable): options, or %NULL for the defaults
 *
 * How long an acquire waits (fl_lock_options_set_timeout_ms()).
 *
 * Returns: the timeout in milliseconds; a negative value (%FL_TIMEOUT_INFINITE) waits
 *   forever
 *
 * Since: 0.1
 */
gint64
fl_lock_options_get_timeout_ms (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->timeout_ms;
}

gint64
_fl_lock_options_deadline_us (const FlLockOptions *options,
                              gint64               start_us)
{
  gint64 timeout_ms = _fl_lock_options_or_default (options)->timeout_ms;

  if (timeout_ms < 0 || timeout_ms > (G_MAXINT64 - MAX (start_us, 0)) / 1000)
    return -1;
  return start_us + timeout_ms * 1000;
}

/**
 * fl_lock_options_set_stale_after_ms:
 * @stale_after_ms: how old a lock whose content is not a valid PID must be before it counts
 *   as stale, in milliseconds, from 0 (stale at once) on; %FL_STALE_NEVER, or any value from
 *   %FL_STALE_AFTER_NEVER_FROM_MS (100 years) on, means never. A negative value is a
 *   programmer's error and is ignored. Locks with a PID are judged by their holder, never by
 *   age.
 *
 * Sets when a lock whose content is not a PID may be taken over. The default is
 * %FL_DEFAULT_STALE_AFTER_MS.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_stale_after_ms (FlLockOptions *self,
                                    gint64         stale_after_ms)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stale_after_ms >= 0);

  /* Stored bounded, so that `stale_after_ms * 1000` added to a file time cannot overflow. */
  self->stale_after_ms = MIN (stale_after_ms, FL_STALE_AFTER_NEVER_FROM_MS);
}

/**
 * fl_lock_options_get_stale_after_ms:
 * @self: (nullable): options, or %NULL for the defaults
 *
 * How old a lock whose content is not a PID must be to be stale
 * (fl_lock_options_set_stale_after_ms()).
 *
 * Returns: stale_after in milliseconds, or %FL_STALE_NEVER
 *
 * Since: 0.1
 */
gint64
fl_lock_options_get_stale_after_ms (const FlLockOptions *self)
{
  gint64 ms = _fl_lock_options_or_default (self)->stale_after_ms;

  return ms >= FL_STALE_AFTER_NEVER_FROM_MS ? FL_STALE_NEVER : ms;
}

gint64
_fl_lock_options_stale_after_us (const FlLockOptions *options)
{
  gint64 ms = _fl_lock_options_or_default (options)->stale_after_ms;

  return ms >= FL_STALE_AFTER_NEVER_FROM_MS ? G_MAXINT64 : ms * 1000;
}

gint64
_fl_lock_options_stale_at_us (const FlLockOptions *options,
                              gint64               mtime_us)
{
  gint64 after_us = _fl_lock_options_stale_after_us (options);

  if (after_us == G_MAXINT64 || mtime_us > G_MAXINT64 - after_us)
    return G_MAXINT64;
  return mtime_us + after_us;
}

/**
 * fl_lock_options_set_create_dirs:
 * @create_dirs: whether acquiring creates the lock's missing parent directories (mode 0777
 *   less the umask), as the Node module does
 *
 * Sets whether an acquire creates the lock's missing directories. The default is %FALSE: a
 * missing directory is %FL_ERROR_NOT_DIRECTORY.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_create_dirs (FlLockOptions *self,
                                 gboolean       create_dirs)
{
  g_return_if_fail (self != NULL);

  self->create_dirs = !!create_dirs;
}

/**
 * fl_lock_options_get_create_dirs:
 * @self: (nullable): options, or %NULL for the defaults
 *
 * Whether an acquire creates the lock's missing directories
 * (fl_lock_options_set_create_dirs()).
 *
 * Returns: %TRUE if missing directories are created
 *
 * Since: 0.1
 */
gboolean
fl_lock_options_get_create_dirs (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->create_dirs;
}

/**
 * fl_lock_options_set_backoff_ms:
 * @min_ms: the first retry interval where no events can be watched, or where the process
 *   keeping a lock's kernel lock cannot be watched (it is not the PID in the file); at least 1
 * @max_ms: the longest retry interval, and the period of the safety re-check while waiting
 *   on events; at least @min_ms
 *
 * Waiting is driven by events (see docs/protocol.md, section 5); these bounds matter only
 * where events are unavailable, and as a safety net. Values above %FL_BACKOFF_LIMIT_MS
 * (24 hours) wait that long; %G_MAXINT64 is fine.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_backoff_ms (FlLockOptions *self,
                                gint64         min_ms,
                                gint64         max_ms)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (min_ms >= 1);
  g_return_if_fail (max_ms >= min_ms);

  self->backoff_min_ms = min_ms;
  self->backoff_max_ms = max_ms;
}

/**
 * fl_lock_options_get_backoff_ms:
 * @self: (nullable): options, or %NULL for the defaults
 * @min_ms: (out) (optional): where to store the first retry interval, in milliseconds
 * @max_ms: (out) (optional): where to store the longest retry interval, in milliseconds
 *
 * The bounds of the retry interval where no event can be watched
 * (fl_lock_options_set_backoff_ms()).
 *
 * Since: 0.1
 */
void
fl_lock_options_get_backoff_ms (const FlLockOptions *self,
                                gint64              *min_ms,
                                gint64              *max_ms)
{
  self = _fl_lock_options_or_default (self);

  if (min_ms != NULL)
    *min_ms = self->backoff_min_ms;
  if (max_ms != NULL)
    *max_ms = self->backoff_max_ms;
}

void
_fl_lock_options_backoff_us (const FlLockOptions *options,
                             gint64              *min_us,
                             gint64              *max_us)
{
  options = _fl_lock_options_or_default (options);

  /* Clamped before the multiplication: an overflow made waiters poll every millisecond. */
  *min_us = MIN (options->backoff_min_ms, FL_BACKOFF_LIMIT_MS) * 1000;
  *max_us = MIN (options->backoff_max_ms, FL_BACKOFF_LIMIT_MS) * 1000;
}

/**
 * fl_lock_options_set_lease_ttl_s:
 * @ttl_s: the TTL of an etcd lock's lease, in seconds (at least 2; smaller values mean 2)
 *
 * How long etcd keeps an etcd lock after its holder stops renewing it (crashed, paused,
 * partitioned), and so how long a waiter waits for a dead holder. The holder reports the lock
 * lost earlier, at TTL - margin after its last renewal was sent (the margin is the larger of
 * 1 s and TTL/5). File locks ignore it. The default is %FL_DEFAULT_LEASE_TTL_S.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_lease_ttl_s (FlLockOptions *self,
                                 guint          ttl_s)
{
  g_return_if_fail (self != NULL);

  self->lease_ttl_s = MAX (ttl_s, 2);
}

/**
 * fl_lock_options_get_lease_ttl_s:
 * @self: (nullable): options, or %NULL for the defaults
 *
 * The TTL of an etcd lock's lease (fl_lock_options_set_lease_ttl_s()).
 *
 * Returns: the TTL in seconds, at least 2
 *
 * Since: 0.1
 */
guint
fl_lock_options_get_lease_ttl_s (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->lease_ttl_s;
}

/**
 * fl_lock_options_set_etcd_ca_file:
 * @ca_file: (type filename) (nullable): a PEM file of the certificate authorities trusted for
 *   `etcds://` targets, or %NULL for the default
 *
 * The file replaces the system's CA store for etcd's server certificate (etcd's
 * `--trusted-ca-file` on the client side). By default, and when @ca_file is %NULL, the
 * environment variable `FL_ETCD_CA_FILE` names the file, else the system's store is trusted.
 * The file is read at the first call to etcd; a file that cannot be read is an error that
 * names it. File locks and `etcd://` targets ignore it.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_etcd_ca_file (FlLockOptions *self,
                                  const char    *ca_file)
{
  g_return_if_fail (self != NULL);

  g_free (self->etcd_ca_file);
  self->etcd_ca_file = g_strdup (ca_file);
}

/**
 * fl_lock_options_set_etcd_client_certificate:
 * @cert_file: (type filename) (nullable): the PEM file of this client's certificate, or %NULL
 *   for the default
 * @key_file: (type filename) (nullable): the PEM file of its private key; %NULL when
 *   @cert_file holds the key too
 *
 * The certificate shown to an etcd started with `--client-cert-auth`. By default, and when
 * @cert_file is %NULL, the environment variables `FL_ETCD_CERT_FILE` and `FL_ETCD_KEY_FILE`
 * name them, else no certificate is shown. The files are read at the first call to etcd.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_etcd_client_certificate (FlLockOptions *self,
                                             const char    *cert_file,
                                             const char    *key_file)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (cert_file != NULL || key_file == NULL);

  g_free (self->etcd_cert_file);
  g_free (self->etcd_key_file);
  self->etcd_cert_file = g_strdup (cert_file);
  self->etcd_key_file = g_strdup (key_file);
}

/**
 * fl_lock_options_set_etcd_user:
 * @user: (nullable): the etcd user to authenticate as, or %NULL for the default
 * @password_file: (type filename) (nullable): a file holding the user's password (one line;
 *   a final newline is not part of it); required when @user is given
 *
 * For an etcd with authentication enabled (`etcdctl auth enable`). The password is read from
 * @password_file when etcd is first asked for a token, never from the command line or the
 * environment, and never from the target URI: a target with `user@` in it is refused. By
 * default, and when @user is %NULL, the environment variables `FL_ETCD_USER` and
 * `FL_ETCD_PASSWORD_FILE` say, else no user is sent.
 *
 * Since: 0.1
 */
void
fl_lock_options_set_etcd_user (FlLockOptions *self,
                               const char    *user,
                               const char    *password_file)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail ((user == NULL) == (password_file == NULL));

  g_free (self->etcd_user);
  g_free (self->etcd_password_file);
  self->etcd_user = g_strdup (user);
  self->etcd_password_file = g_strdup (password_file);
}
