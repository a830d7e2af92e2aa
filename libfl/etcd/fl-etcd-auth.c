/* fl-etcd-auth.c: the TLS files and the user/password of etcd calls, and the auth token
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * docs/etcd.md, "TLS and authentication". Each setting comes from the options, else from the
 * FL_ETCD_* environment (as etcdctl's ETCDCTL_*), so flctl and the inspector get them with no
 * flag. The password is only ever read from a file, at the first authentication.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "etcd/fl-etcd-private.h"
#include "fl-options-private.h"

/* A password is one line; anything longer is not a password file. */
#define PASSWORD_MAX 4096

struct _FlEtcdAuth
{
  gint             ref;
  GMutex           mutex;      /* guards everything below the settings */
  char            *ca_file;
  const char      *ca_from;    /* the option or variable that named it, for errors */
  char            *cert_file;
  char            *key_file;
  const char      *cert_from;
  char            *user;
  char            *password_file;
  const char      *user_from;
  gboolean         tls_loaded;
  GTlsDatabase    *database;
  GTlsCertificate *certificate;
  char            *password;
  char            *token;
};

/* An empty variable is an unset one. */
static const char *
env (const char *name)
{
  const char *value = g_getenv (name);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

FlEtcdAuth *
_fl_etcd_auth_new (const FlLockOptions *options)
{
  FlEtcdAuth *auth = g_new0 (FlEtcdAuth, 1);

  options = _fl_lock_options_or_default (options);
  auth->ref = 1;
  g_mutex_init (&auth->mutex);

  if (options->etcd_ca_file != NULL)
    {
      auth->ca_file = g_strdup (options->etcd_ca_file);
      auth->ca_from = "fl_lock_options_set_etcd_ca_file()";
    }
  else
    {
      auth->ca_file = g_strdup (env ("FL_ETCD_CA_FILE"));
      auth->ca_from = "FL_ETCD_CA_FILE";
    }

  if (options->etcd_cert_file != NULL)
    {
      auth->cert_file = g_strdup (options->etcd_cert_file);
      auth->key_file = g_strdup (options->etcd_key_file);
      auth->cert_from = "fl_lock_options_set_etcd_client_certificate()";
    }
  else
    {
      auth->cert_file = g_strdup (env ("FL_ETCD_CERT_FILE"));
      auth->key_file = g_strdup (env ("FL_ETCD_KEY_FILE"));
      auth->cert_from = "FL_ETCD_CERT_FILE/FL_ETCD_KEY_FILE";
    }

  if (options->etcd_user != NULL)
    {
      auth->user = g_strdup (options->etcd_user);
      auth->password_file = g_strdup (options->etcd_password_file);
      auth->user_from = "fl_lock_options_set_etcd_user()";
    }
  else
    {
      auth->user = g_strdup (env ("FL_ETCD_USER"));
      auth->password_file = g_strdup (env ("FL_ETCD_PASSWORD_FILE"));
      auth->user_from = "FL_ETCD_USER/FL_ETCD_PASSWORD_FILE";
    }
  return auth;
}

FlEtcdAuth *
_fl_etcd_auth_ref (FlEtcdAuth *auth)
{
  g_atomic_int_inc (&auth->ref);
  return auth;
}

void
_fl_etcd_auth_unref (FlEtcdAuth *auth)
{
  if (auth == NULL || !g_atomic_int_dec_and_test (&auth->ref))
    return;
  g_free (auth->ca_file);
  g_free (auth->cert_file);
  g_free (auth->key_file);
  g_free (auth->user);
  g_free (auth->password_file);
  g_clear_object (&auth->database);
  g_clear_object (&auth->certificate);
  if (auth->password != NULL)
    memset (auth->password, 0, strlen (auth->password));
  g_free (auth->password);
  g_free (auth->token);
  g_mutex_clear (&auth->mutex);
  g_free (auth);
}

gboolean
_fl_etcd_auth_load_tls (FlEtcdAuth       *auth,
                        GTlsDatabase    **database,
                        GTlsCertificate **certificate,
                        GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok = TRUE;

  g_mutex_lock (&auth->mutex);
  if (!auth->tls_loaded && auth->ca_file != NULL && auth->database == NULL)
    {
      auth->database = g_tls_file_database_new (auth->ca_file, &local_error);
      if (auth->database == NULL)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       _("Cannot read the etcd CA file “%s” (from %s): %s"), auth->ca_file,
                       auth->ca_from, local_error->message);
          ok = FALSE;
        }
    }
  if (ok && !auth->tls_loaded && auth->cert_file != NULL && auth->certificate == NULL)
    {
      /* Without a key file the certificate's own file must hold the key. */
      auth->certificate = g_tls_certificate_new_from_files (
        auth->cert_file, auth->key_file != NULL ? auth->key_file : auth->cert_file,
        &local_error);
      if (auth->certificate == NULL)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       _("Cannot load the etcd client certificate “%s” with the key “%s” "
                         "(from %s): %s"), auth->cert_file,
                       auth->key_file != NULL ? auth->key_file : auth->cert_file,
                       auth->cert_from, local_error->message);
          ok = FALSE;
        }
    }
  auth->tls_loaded = ok;
  if (database != NULL)
    *database = auth->database;
  if (certificate != NULL)
    *certificate = auth->certificate;
  g_mutex_unlock (&auth->mutex);
  return ok;
}

const char *
_fl_etcd_auth_get_ca_file (FlEtcdAuth *auth)
{
  return auth->ca_file;
}

gboolean
_fl_etcd_auth_has_certificate (FlEtcdAuth *auth)
{
  return auth->cert_file != NULL;
}

const char *
_fl_etcd_auth_get_user (FlEtcdAuth *auth)
{
  return auth->user;
}

/* Bounded: a password file is small, and a huge or endless one (a FIFO, /dev/zero) is an
 * error rather than memory spent. */
static char *
read_password (const char  *path,
               const char  *from,
               GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GError) local_error = NULL;
  char buffer[PASSWORD_MAX + 1];
  gsize len = 0;
  char *password;

  in = g_file_read (file, NULL, &local_error);
  if (in == NULL ||
      !g_input_stream_read_all (G_INPUT_STREAM (in), buffer, sizeof buffer, &len, NULL,
                                &local_error))
    {
      int code = g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
                 ? FL_ERROR_PERMISSION : FL_ERROR_FAILED;

      g_set_error (error, FL_ERROR, code,
                   _("Cannot read the etcd password file “%s” (from %s): %s"), path, from,
                   local_error->message);
      return NULL;
    }
  if (len > PASSWORD_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("The etcd password file “%s” (from %s) is longer than %d bytes: it should "
                     "hold the password alone, on one line"), path, from, PASSWORD_MAX);
      return NULL;
    }
  if (len > 0 && buffer[len - 1] == '\n')
    len--;
  if (len > 0 && buffer[len - 1] == '\r')
    len--;
  if (len == 0 || memchr (buffer, '\0', len) != NULL || memchr (buffer, '\n', len) != NULL)
    {
      memset (buffer, 0, sizeof buffer);
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("The etcd password file “%s” (from %s) must hold the password alone, on "
                     "one line (it is empty, or has several lines or a NUL)"), path, from);
      return NULL;
    }
  password = g_strndup (buffer, len);
  memset (buffer, 0, sizeof buffer);
  return password;
}

char *
_fl_etcd_auth_dup_request (FlEtcdAuth  *auth,
                           GError     **error)
{
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonGenerator) generator = NULL;
  g_autoptr(JsonNode) root = NULL;
  char *body = NULL;

  g_mutex_lock (&auth->mutex);
  if (auth->password == NULL)
    {
      if (auth->password_file == NULL)
        g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                     _("The etcd user “%s” (from %s) has no password file: set "
                       "FL_ETCD_PASSWORD_FILE too"), auth->user, auth->user_from);
      else
        auth->password = read_password (auth->password_file, auth->user_from, error);
    }
  if (auth->password != NULL)
    {
      /* Built, not printed: a password may hold quotes and backslashes. */
      builder = json_builder_new_immutable ();
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, auth->user);
      json_builder_set_member_name (builder, "password");
      json_builder_add_string_value (builder, auth->password);
      json_builder_end_object (builder);
      root = json_builder_get_root (builder);
      generator = json_generator_new ();
      json_generator_set_root (generator, root);
      body = json_generator_to_data (generator, NULL);
    }
  g_mutex_unlock (&auth->mutex);
  return body;
}

char *
_fl_etcd_auth_dup_token (FlEtcdAuth *auth)
{
  char *token;

  g_mutex_lock (&auth->mutex);
  token = g_strdup (auth->token);
  g_mutex_unlock (&auth->mutex);
  return token;
}

void
_fl_etcd_auth_set_token (FlEtcdAuth *auth,
                         const char *token)
{
  g_mutex_lock (&auth->mutex);
  g_free (auth->token);
  auth->token = g_strdup (token);
  g_mutex_unlock (&auth->mutex);
}

void
_fl_etcd_auth_forget_token (FlEtcdAuth *auth,
                            const char *token)
{
  g_mutex_lock (&auth->mutex);
  if (token != NULL && g_strcmp0 (auth->token, token) == 0)
    g_clear_pointer (&auth->token, g_free);
  g_mutex_unlock (&auth->mutex);
}

/* Measured on 3.4.23: HTTP 401, code 16 (UNAUTHENTICATED), for every token issued before an
 * `auth disable` + `auth enable`. A call sent without a token (etcd had authentication off
 * when we asked for one: @sent_none) gets "user name is empty" once it is turned on. */
gboolean
_fl_etcd_auth_is_invalid_token (guint    status,
                                GBytes  *body,
                                gboolean sent_none)
{
  g_autoptr(JsonObject) root = NULL;
  const char *message = NULL;

  if (status == 200)
    return FALSE;
  root = _fl_etcd_json_parse (body);
  if (root != NULL)
    message = json_object_get_string_member_with_default (root, "message", NULL);
  if (message == NULL)
    return FALSE;
  if (status == 401 && strstr (message, "invalid auth token") != NULL)
    return TRUE;
  return sent_none && strstr (message, "user name is empty") != NULL;
}
