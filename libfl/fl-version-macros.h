/* fl-version-macros.h: export and availability macros for libfl
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

/* Self-contained on purpose: it must not depend on config.h, which is not installed. */
#include <glib.h>

/* Export or import, as json-glib and GLib decide it: libfl's own files are compiled with
 * FL_COMPILATION and export; a program that uses the DLL imports; a program that links a
 * static libfl defines FL_STATIC_COMPILATION itself, as with GLib's GLIB_STATIC_COMPILATION,
 * and does neither. Elsewhere only the symbols marked here are visible (-fvisibility=hidden). */
#if defined(_WIN32) || defined(__CYGWIN__)
# if defined(FL_STATIC_COMPILATION)
#  define _FL_EXPORT
# elif defined(FL_COMPILATION)
#  define _FL_EXPORT __declspec(dllexport)
# else
#  define _FL_EXPORT __declspec(dllimport)
# endif
#elif defined(__GNUC__)
# define _FL_EXPORT __attribute__((visibility ("default")))
#else
# define _FL_EXPORT
#endif

#define _FL_EXTERN _FL_EXPORT extern

/**
 * FL_VERSION_0_1:
 *
 * The version of libfl 0.1, the first release, encoded for comparisons with
 * %FL_VERSION_MAX_ALLOWED.
 *
 * Since: 0.1
 */
#define FL_VERSION_0_1 (G_ENCODE_VERSION (0, 1))

/* The version this header describes; a newer libfl adds its own FL_VERSION_x_y above. */
#define FL_VERSION_CUR_STABLE FL_VERSION_0_1

/**
 * FL_VERSION_MAX_ALLOWED:
 *
 * Define it before including <libfl/fl.h> to the newest libfl a program may use (for
 * example `FL_VERSION_0_1`): the compiler then warns about any newer API, as with GLib's
 * GLIB_VERSION_MAX_ALLOWED. It defaults to this header's version.
 *
 * Since: 0.1
 */
#ifndef FL_VERSION_MAX_ALLOWED
# define FL_VERSION_MAX_ALLOWED FL_VERSION_CUR_STABLE
#endif

/* Every exported symbol carries one of these, naming the release that brought it (its doc
 * says the same in "Since:"); everything else stays hidden. FL_AVAILABLE_IN_ALL is for what
 * is generated (the enum types) and exists in every version. */
#define FL_AVAILABLE_IN_ALL _FL_EXTERN

#if FL_VERSION_MAX_ALLOWED < FL_VERSION_0_1
# define FL_AVAILABLE_IN_0_1 G_UNAVAILABLE (0, 1) _FL_EXTERN
#else
# define FL_AVAILABLE_IN_0_1 _FL_EXTERN
#endif
