/* fl-version-macros.h: export and availability macros for libfl
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

/* Self-contained on purpose: it must not depend on config.h, which is not installed. */
#if defined(_WIN32) || defined(__CYGWIN__)
# define _FL_EXTERN __declspec(dllexport) extern
#elif defined(__GNUC__)
# define _FL_EXTERN __attribute__((visibility ("default"))) extern
#else
# define _FL_EXTERN extern
#endif

/* Every exported symbol carries this; everything else stays hidden. */
#define FL_AVAILABLE_IN_ALL _FL_EXTERN
