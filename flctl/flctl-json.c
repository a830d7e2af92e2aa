/* flctl-json.c: a JSON writer with JSON-GLib's layout (flctl-json.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "flctl-json.h"

struct _FlctlJson
{
  GString  *out;
  gboolean  pretty;
  GArray   *counts;   /* per open object or array: the values written in it so far */
  char     *member;   /* the name of the next value, in an object */
};

FlctlJson *
flctl_json_new (gboolean pretty)
{
  FlctlJson *self = g_new0 (FlctlJson, 1);

  self->out = g_string_new (NULL);
  self->pretty = pretty;
  self->counts = g_array_new (FALSE, FALSE, sizeof (guint));
  return self;
}

void
flctl_json_free (FlctlJson *self)
{
  g_string_free (self->out, TRUE);
  g_array_unref (self->counts);
  g_free (self->member);
  g_free (self);
}

const char *
flctl_json_get_text (FlctlJson *self)
{
  g_assert (self->counts->len == 0);
  return self->out->str;
}

/* RFC 8259, section 7: quotation mark, reverse solidus and the control characters escaped,
 * the short forms where JSON has them; as JSON-GLib does, DEL too (but U+001F escaped, which
 * JSON-GLib 1.6 forgets). Everything else, UTF-8 included, as it is. */
static void
append_string (GString    *out,
               const char *value)
{
  g_autofree char *valid = g_utf8_make_valid (value, -1);

  g_string_append_c (out, '"');
  for (const char *p = valid; *p != '\0'; p++)
    {
      guchar c = (guchar) *p;

      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, (char) c);
        }
    }
  g_string_append_c (out, '"');
}

static void
indent (FlctlJson *self)
{
  for (guint i = 0; i < self->counts->len; i++)
    g_string_append (self->out, "  ");
}

/* What comes before any value: the comma after the previous one, the line and indentation,
 * and the member's name. */
static void
begin_value (FlctlJson *self)
{
  if (self->counts->len > 0)
    {
      guint *count = &g_array_index (self->counts, guint, self->counts->len - 1);

      if ((*count)++ > 0)
        g_string_append_c (self->out, ',');
      if (self->pretty)
        g_string_append_c (self->out, '\n');
    }
  if (self->pretty)
    indent (self);
  if (self->member != NULL)
    {
      append_string (self->out, self->member);
      g_string_append (self->out, self->pretty ? " : " : ":");
      g_clear_pointer (&self->member, g_free);
    }
}

static void
open_container (FlctlJson *self,
                char       bracket)
{
  guint zero = 0;

  begin_value (self);
  g_string_append_c (self->out, bracket);
  g_array_append_val (self->counts, zero);
}

static void
close_container (FlctlJson *self,
                 char       bracket)
{
  guint count;

  g_assert (self->counts->len > 0);
  count = g_array_index (self->counts, guint, self->counts->len - 1);
  g_array_set_size (self->counts, self->counts->len - 1);
  /* JSON-GLib's layout, kept byte for byte: an empty array is "[]", an empty object is "{"
   * and "}" with the indentation between. */
  if (self->pretty && count > 0)
    g_string_append_c (self->out, '\n');
  if (self->pretty && (count > 0 || bracket == '}'))
    indent (self);
  g_string_append_c (self->out, bracket);
}

void
flctl_json_begin_object (FlctlJson *self)
{
  open_container (self, '{');
}

void
flctl_json_end_object (FlctlJson *self)
{
  close_container (self, '}');
}

void
flctl_json_begin_array (FlctlJson *self)
{
  open_container (self, '[');
}

void
flctl_json_end_array (FlctlJson *self)
{
  close_container (self, ']');
}

void
flctl_json_set_member_name (FlctlJson  *self,
                            const char *name)
{
  g_free (self->member);
  self->member = g_strdup (name);
}

void
flctl_json_add_string_value (FlctlJson  *self,
                             const char *value)
{
  begin_value (self);
  append_string (self->out, value);
}

void
flctl_json_add_int_value (FlctlJson *self,
                          gint64     value)
{
  begin_value (self);
  g_string_append_printf (self->out, "%" G_GINT64_FORMAT, value);
}

void
flctl_json_add_boolean_value (FlctlJson *self,
                              gboolean   value)
{
  begin_value (self);
  g_string_append (self->out, value ? "true" : "false");
}

void
flctl_json_add_null_value (FlctlJson *self)
{
  begin_value (self);
  g_string_append (self->out, "null");
}
