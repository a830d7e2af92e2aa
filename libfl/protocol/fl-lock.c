/* fl-lock.c: FlLock, the public object: it picks a backend from the target once (the file
 * protocol's is fl-file-lock.c, etcd's libfl/etcd/) and reports a lost lock
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-error.h"
#include "platform/fl-platform.h"
#include "protocol/fl-held-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "protocol/fl-lock-private.h"

/**
 * FlLock:
 *
 * A lock held by this process on a target file (or an etcd lock): made by fl_lock_acquire(),
 * fl_lock_try_acquire() or fl_lock_acquire_async(). The lock file `target.lock` holds this
 * process's PID, as the Node module writes it, and a kernel lock on it makes the holder's
 * liveness exact (docs/protocol.md).
 *
 * Ownership, stated here once: the object owns the lock, and the lock ends with the object.
 * fl_lock_release() ends it and reports %FL_ERROR_LOST if it was taken away; dropping the last
 * reference releases it the same way, ignoring errors (so a lock held from Python or
 * JavaScript lives as long as its object: docs/bindings.md). The holder is the process that
 * acquired it, by its real PID: in a forked child the object says fl_lock_is_held() %FALSE
 * (and never emits #FlLock::lost there), and its release or last reference there only
 * closes the child's copy of the descriptor, removing nothing. A descriptor from fl_lock_dup_fd() shares the kernel lock, which lives
 * while any copy of it is open, in any process. A lock is not re-entrant: acquiring it again
 * in this process, from any thread, fails at once with %FL_ERROR_HELD_BY_SELF.
 *
 * Since: 0.1
 */
struct _FlLock
{
  GObject              parent_instance;

  const FlLockBackend *backend;
  gpointer             state;    /* the backend's */
  GMutex               mutex;    /* guards context and watchdog */
  GMainContext        *context;  /* where ::lost is emitted: the acquirer's */
  GSource             *watchdog; /* on context, at the backend's held_until(); or NULL */
  gboolean             released; /* the watchdog is not re-armed after fl_lock_release() */
  int                  owner;    /* the PID that took it: a forked child's copy never fires */
  int                  lost_emitted;  /* atomic: ::lost is emitted once */
  char                *held_key; /* this process's claim on the lock (fl-held.c) */
  guint64              held_serial;
};

G_DEFINE_FINAL_TYPE (FlLock, fl_lock, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TARGET,
  PROP_PATH,
  PROP_HELD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_LOST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* However the lock ends (release, last unref, loss), this process may take it again. */
static void
drop_claim (FlLock *self)
{
  if (self->held_key != NULL)
    _fl_held_drop (self->held_key, self->held_serial);
}

/* ::lost, once, however many report it (the backend's thread, the watchdog). Runs on the
 * lock's context. */
static void
emit_lost_once (FlLock *self)
{
  if (!g_atomic_int_compare_and_exchange (&self->lost_emitted, FALSE, TRUE))
    return;
  g_signal_emit (self, signals[SIGNAL_LOST], 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
}

/* The watchdog: a source on the lock's own context, ready when the backend says is_held()
 * turns FALSE by itself (an etcd lease's local deadline). The backend's thread reports the
 * loss too, but a stall of that thread (a blocked DNS lookup, a starved process) would delay
 * ::lost past the moment fl_lock_is_held() says FALSE; this source cannot be later than that
 * (issue 30, item 9). It holds the lock weakly: the lock owns it and destroys it. */
static gboolean
watchdog_dispatch (GSource     *source,
                   GSourceFunc  callback,
                   gpointer     data)
{
  return callback (data);
}

static GSourceFuncs watchdog_funcs = { NULL, NULL, watchdog_dispatch, NULL, NULL, NULL };

static void watchdog_arm_locked (FlLock *self);

/* Whether this process took the lock. A forked child inherits the object and its watchdog
 * (a source on a context the child may iterate), not the lock: there fl_lock_is_held() says
 * FALSE from the start, which is no loss to report. */
static gboolean
held_here (FlLock *self)
{
  return self->owner == _fl_platform_self_pid ();
}

static gboolean
watchdog_cb (gpointer data)
{
  g_autoptr(FlLock) self = g_weak_ref_get (data);
  gboolean lost, armed;

  if (self == NULL)
    return G_SOURCE_REMOVE;
  g_mutex_lock (&self->mutex);
  lost = held_here (self) && !self->released && !fl_lock_is_held (self);
  g_mutex_unlock (&self->mutex);
  if (lost)
    {
      drop_claim (self);
      emit_lost_once (self);
    }
  /* Held: renewed meanwhile, so wait for the next deadline. Otherwise the watchdog goes. */
  g_mutex_lock (&self->mutex);
  watchdog_arm_locked (self);
  armed = self->watchdog != NULL;
  g_mutex_unlock (&self->mutex);
  return armed ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

/* Under self->mutex: (re)arms the watchdog at the backend's deadline on self->context, or
 * removes it when there is none (a file lock, released, lost). */
static void
watchdog_arm_locked (FlLock *self)
{
  gint64 until = self->released || g_atomic_int_get (&self->lost_emitted) || !held_here (self)
                 ? G_MAXINT64 : self->backend->held_until (self->state);

  if (until == G_MAXINT64)
    {
      if (self->watchdog != NULL)
        g_source_destroy (self->watchdog);
      g_clear_pointer (&self->watchdog, g_source_unref);
      return;
    }
  if (self->watchdog == NULL)
    {
      GWeakRef *ref = g_new0 (GWeakRef, 1);

      g_weak_ref_init (ref, self);
      self->watchdog = g_source_new (&watchdog_funcs, sizeof (GSource));
      g_source_set_static_name (self->watchdog, "[libfl] lock lease deadline");
      g_source_set_callback (self->watchdog, watchdog_cb, ref, weak_ref_free);
      g_source_attach (self->watchdog, self->context);
    }
  /* GLib waits on the monotonic clock; the deadline is on the boot clock. */
  g_source_set_ready_time (self->watchdog, g_get_monotonic_time () +
                           MAX (until - _fl_platform_boottime_now (), 0));
}

/* The public object: the backend is chosen from the target, once (fl-backends.c). */

static FlLock *
acquire (const char          *target,
         const FlLockOptions *options,
         gboolean             wait,
         GCancellable        *cancellable,
         GError             **error)
{
  const FlLockBackend *backend = _fl_lock_backend_for (target);
  g_autofree char *key = backend->dup_held_key (target);
  guint64 serial = 0;
  gpointer state;
  FlLock *self;

  if (key != NULL && !_fl_held_claim (key, &serial, error))
    return NULL;
  state = backend->acquire (target, options, wait, cancellable, error);
  if (state == NULL)
    {
      if (key != NULL)
        _fl_held_drop (key, serial);
      return NULL;
    }
  if (key != NULL)
    _fl_held_granted (key, serial);

  self = g_object_new (FL_TYPE_LOCK, NULL);
  self->backend = backend;
  self->state = state;
  self->held_key = g_steal_pointer (&key);
  self->held_serial = serial;
  self->owner = _fl_platform_self_pid ();
  backend->bind (state, self);
  g_mutex_lock (&self->mutex);
  watchdog_arm_locked (self);
  g_mutex_unlock (&self->mutex);
  return self;
}

/**
 * fl_lock_acquire:
 * @target: the file to lock (its lock is `@target.lock`), or an etcd lock,
 *   `etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME` (docs/etcd.md)
 * @options: (nullable): options, or %NULL for the defaults (wait at most 30 s)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Takes the lock of @target, waiting while a live process holds it. A stale lock (its holder
 * died, or its PID was reused) is taken over safely. Waiting wakes on events, not by polling.
 * The lock is on the directory that is at @target's directory path when it is granted: if that
 * directory is replaced meanwhile (`mv d d.old; mkdir d`), the acquire starts over in the new
 * one (docs/protocol.md, section 3a).
 *
 * An etcd target waits in etcd's queue for NAME under PREFIX (NAME may contain `/`; it is one
 * key component, so `a/b` never waits behind `a/b/c`), with a lease of the options' TTL that a
 * background thread keeps alive; the endpoints are tried in turn. If the lease may have
 * expired, the lock emits #FlLock::lost and fl_lock_is_held() turns %FALSE.
 *
 * Thread safety: any thread may call this. A lock is not re-entrant: if this process already
 * holds @target's lock, or another of its threads is acquiring it, this fails at once with
 * %FL_ERROR_HELD_BY_SELF instead of waiting for itself (the same spelling of @target after
 * making it absolute; an etcd lock by its endpoints and name). A forked child is another
 * process: it waits for its parent's lock as any process does.
 *
 * Returns: (transfer full): the held lock, or %NULL with @error set: %FL_ERROR_TIMEOUT,
 *   %FL_ERROR_HELD_BY_SELF, %G_IO_ERROR_CANCELLED, %FL_ERROR_FOREIGN, or an error naming the
 *   path and the cause
 *
 * Since: 0.1
 */
FlLock *
fl_lock_acquire (const char          *target,
                 const FlLockOptions *options,
                 GCancellable        *cancellable,
                 GError             **error)
{
  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return acquire (target, options, TRUE, cancellable, error);
}

/**
 * fl_lock_try_acquire:
 * @target: the file to lock, or an etcd lock as for fl_lock_acquire()
 * @options: (nullable): options (the timeout is ignored)
 * @error: return location for a #GError
 *
 * Like fl_lock_acquire() but never waits for a live holder: fails with %FL_ERROR_BUSY, whose
 * message names the holder, or %FL_ERROR_HELD_BY_SELF if that is this process. A stale lock
 * is still taken over.
 *
 * Returns: (transfer full): the held lock, or %NULL with @error set
 *
 * Since: 0.1
 */
FlLock *
fl_lock_try_acquire (const char          *target,
                     const FlLockOptions *options,
                     GError             **error)
{
  g_return_val_if_fail (target != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return acquire (target, options, FALSE, NULL, error);
}

/**
 * fl_lock_release:
 * @self: a held #FlLock
 * @error: return location for a #GError
 *
 * Releases the lock: removes `T.lock` if, and only if, it is still the file this holder
 * created. If it was taken away, nothing is removed and %FL_ERROR_LOST names the path and
 * the process that holds it now. Releasing twice does nothing the second time. Who may
 * release, and what dropping the last reference does: #FlLock.
 *
 * An etcd lock is released by a delete guarded on its fencing token, then its lease is
 * revoked; %FL_ERROR_LOST if the key was no longer ours or the lock was reported lost.
 *
 * Returns: %TRUE if the lock was released, %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
fl_lock_release (FlLock  *self,
                 GError **error)
{
  gboolean was_held;
  gboolean ok;

  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ok = self->backend->release_held (self->state, &was_held, error);
  g_mutex_lock (&self->mutex);
  self->released = TRUE;
  watchdog_arm_locked (self);
  g_mutex_unlock (&self->mutex);
  drop_claim (self);
  if (was_held || !ok)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HELD]);
  return ok;
}

/**
 * fl_lock_get_target:
 * @self: a #FlLock
 *
 * The file this lock protects, as given to the acquire.
 *
 * Returns: (type filename): the target
 *
 * Since: 0.1
 */
const char *
fl_lock_get_target (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->backend->get_target (self->state);
}

/* For an etcd lock: the key prefix of its queue in etcd, PREFIX/ESCAPED-NAME. */
/**
 * fl_lock_get_path:
 * @self: a #FlLock
 *
 * The lock file, `target.lock`; for an etcd lock the key prefix of its queue in etcd,
 * `PREFIX/ESCAPED-NAME`.
 *
 * Returns: (type filename): the lock's path
 *
 * Since: 0.1
 */
const char *
fl_lock_get_path (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), NULL);
  return self->backend->get_path (self->state);
}

/**
 * fl_lock_is_held:
 * @self: a #FlLock
 *
 * Whether this process holds the lock: %FALSE once released, and in a forked child
 * (however it was forked, `_Fork()` included; #FlLock says why).
 *
 * An etcd lock is %FALSE in a forked child too, and its release there does nothing. It turns
 * %FALSE at the moment its lease may have expired (the send time of the
 * last successful keepalive + TTL - margin), whether or not etcd has noticed.
 *
 * Returns: %TRUE while the lock is held by this process
 *
 * Since: 0.1
 */
gboolean
fl_lock_is_held (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), FALSE);
  return self->backend->is_held (self->state);
}

/**
 * fl_lock_get_fencing_token:
 * @self: a #FlLock
 *
 * A number that grows strictly from one holder of the lock to the next, for a resource that
 * must refuse a holder that lost the lock without knowing it: the resource remembers the
 * highest token it has seen and rejects writes carrying a lower one (docs/fencing.md).
 * It grows within one etcd cluster's history: a cluster made anew or restored from a
 * snapshot counts again from an earlier revision (docs/fencing.md says what to do then).
 *
 * On etcd this is the `create_revision` of the lock's key. A file lock has no honest
 * equivalent (inodes are reused, times can be set by anyone): it returns 0, "no token"; a
 * resource that needs fencing must use an etcd lock.
 *
 * Returns: the token, or 0 if the backend has none
 *
 * Since: 0.1
 */
guint64
fl_lock_get_fencing_token (FlLock *self)
{
  g_return_val_if_fail (FL_IS_LOCK (self), 0);
  return self->backend->get_fencing_token (self->state);
}

gboolean
_fl_lock_get_inode (FlLock  *self,
                    guint64 *dev,
                    guint64 *ino)
{
  return self->backend->get_inode (self->state, dev, ino);
}

static gboolean
emit_lost_cb (gpointer data)
{
  emit_lost_once (data);
  return G_SOURCE_REMOVE;
}

void
_fl_lock_report_lost (FlLock *lock)
{
  g_autoptr(GMainContext) context = NULL;
  GSource *source;

  drop_claim (lock);
  g_mutex_lock (&lock->mutex);
  context = g_main_context_ref (lock->context);
  g_mutex_unlock (&lock->mutex);

  /* Always through a source, so ::lost is emitted where the holder runs its main context:
   * g_main_context_invoke() would emit it in the reporting thread whenever nobody owns that
   * context at that instant. */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, emit_lost_cb, g_object_ref (lock), g_object_unref);
  g_source_attach (source, context);
  g_source_unref (source);
}

void
_fl_lock_set_context (FlLock       *self,
                      GMainContext *context)
{
  g_mutex_lock (&self->mutex);
  g_main_context_unref (self->context);
  self->context = g_main_context_ref (context);
  if (self->watchdog != NULL)
    {
      /* Moved with the lock to its new context. */
      g_source_destroy (self->watchdog);
      g_clear_pointer (&self->watchdog, g_source_unref);
      watchdog_arm_locked (self);
    }
  g_mutex_unlock (&self->mutex);
}

static void
fl_lock_finalize (GObject *object)
{
  FlLock *self = (FlLock *) object;

  if (self->watchdog != NULL)
    g_source_destroy (self->watchdog);
  g_clear_pointer (&self->watchdog, g_source_unref);
  if (self->state != NULL)
    self->backend->free (self->state);
  drop_claim (self);
  g_free (self->held_key);
  g_main_context_unref (self->context);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (fl_lock_parent_class)->finalize (object);
}

static void
fl_lock_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  FlLock *self = FL_LOCK (object);

  switch (prop_id)
    {
    case PROP_TARGET:
      g_value_set_string (value, fl_lock_get_target (self));
      break;
    case PROP_PATH:
      g_value_set_string (value, fl_lock_get_path (self));
      break;
    case PROP_HELD:
      g_value_set_boolean (value, fl_lock_is_held (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_lock_class_init (FlLockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fl_lock_finalize;
  object_class->get_property = fl_lock_get_property;

  /**
   * FlLock:target:
   *
   * The file this lock protects (fl_lock_get_target()).
   *
   * Since: 0.1
   */
  properties[PROP_TARGET] =
    g_param_spec_string ("target", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * FlLock:path:
   *
   * The lock file, or an etcd lock's key prefix (fl_lock_get_path()).
   *
   * Since: 0.1
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * FlLock:held:
   *
   * Whether this process holds the lock (fl_lock_is_held()); notified when it is released
   * or lost.
   *
   * Since: 0.1
   */
  properties[PROP_HELD] =
    g_param_spec_boolean ("held", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * FlLock::lost:
   * @self: the #FlLock
   *
   * The lock may no longer be held: an etcd lock's lease may have expired (its keepalives
   * did not reach etcd in time) or was revoked. Emitted once, in the thread-default main
   * context of the thread that acquired the lock (for fl_lock_acquire_async(), the one that
   * called fl_lock_acquire_finish()); fl_lock_is_held() is %FALSE from then on. It comes no
   * later than fl_lock_is_held() turns %FALSE by the lease's local deadline, even while
   * libfl's etcd thread is stalled: a source on that context waits for the deadline too (it
   * waits on the monotonic clock, so after a system suspend it comes when the process runs
   * again). Stop touching what the lock protects. File locks never emit it.
   *
   * Since: 0.1
   */
  signals[SIGNAL_LOST] =
    g_signal_new ("lost", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
fl_lock_init (FlLock *self)
{
  g_mutex_init (&self->mutex);
  self->context = g_main_context_ref_thread_default ();
}

/**
 * fl_lock_dup_fd:
 * @self: a held #FlLock
 * @error: return location for a #GError
 *
 * Returns a new descriptor of the lock file, close-on-exec, that shares the kernel lock
 * of @self: the lock is held for as long as any copy of it is open. A process that gives it to a
 * command (clearing close-on-exec in the child only, as flock(1) does) makes the lock live
 * exactly as long as the command, even if the process itself is killed: libfl then judges the
 * lock held by a child of the PID in the file (docs/protocol.md, "Handing the lock to a
 * command"). The lock file still names this process, and fl_lock_release() still removes it;
 * release only once the command has ended. The caller closes the descriptor. An etcd lock has
 * no descriptor: -1 with %FL_ERROR_FAILED.
 *
 * Returns: a descriptor (3 or above), or -1 with @error set if the lock is not held by this
 *   process
 *
 * Since: 0.1
 */
int
fl_lock_dup_fd (FlLock  *self,
                GError **error)
{
  g_return_val_if_fail (FL_IS_LOCK (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  return self->backend->dup_fd (self->state, error);
}
