/* flctl-json.h: the JSON flctl prints, written as it goes (RFC 8259)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * flctl's records were printed by JSON-GLib's generator; this writes the same bytes, spaces
 * and escapes included (tests/flctl/test-flctl-json.c compares the two), without the library:
 * a program that only lists file locks maps no JSON library (docs/backends.md).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _FlctlJson FlctlJson;

/* @pretty: members and elements one per line, indented by 2, `"name" : value`. */
FlctlJson *flctl_json_new               (gboolean    pretty);
void       flctl_json_free              (FlctlJson  *self);
/* The text written, once every object and array is closed. */
const char *flctl_json_get_text         (FlctlJson  *self);

void       flctl_json_begin_object      (FlctlJson  *self);
void       flctl_json_end_object        (FlctlJson  *self);
void       flctl_json_begin_array       (FlctlJson  *self);
void       flctl_json_end_array         (FlctlJson  *self);
/* In an object: the name of the next value. */
void       flctl_json_set_member_name   (FlctlJson  *self,
                                         const char *name);
/* @value is made valid UTF-8 first: bytes that are not show as U+FFFD. */
void       flctl_json_add_string_value  (FlctlJson  *self,
                                         const char *value);
void       flctl_json_add_int_value     (FlctlJson  *self,
                                         gint64      value);
void       flctl_json_add_boolean_value (FlctlJson  *self,
                                         gboolean    value);
void       flctl_json_add_null_value    (FlctlJson  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlctlJson, flctl_json_free)

G_END_DECLS
