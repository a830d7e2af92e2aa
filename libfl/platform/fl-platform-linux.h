/* fl-platform-linux.h: what fl-platform-linux.c offers beyond fl-platform.h, for its tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The user xattr that carries the holder identity on Linux (docs/protocol.md, section 1). */
#define FL_IDENTITY_XATTR "user.libfl.holder"

/* Parses /proc/<pid>/stat: comm (may hold spaces and parentheses; malloc'd raw bytes), state,
 * the task's flags (PF_*; may be NULL), start ticks. */
bool _fl_parse_proc_stat (const char  *buf,
                          size_t       len,
                          char       **comm,
                          char        *state,
                          uint32_t    *flags,
                          uint64_t    *start_ticks);
