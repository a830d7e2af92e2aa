/* flctl-private.h: what the files of flctl share
 *
 * flctl is a thin front-end over libfl: every judgement (liveness, staleness, takeover) comes
 * from the library. These files only parse arguments, print and run processes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

#include "flctl-args.h"
#include "flctl-json.h"
#include "flctl-table.h"
#include "flctl-text.h"

G_BEGIN_DECLS

/* Exit statuses, documented in docs/flctl.1 (EXIT STATUS). sysexits.h names 74 and 75. */
enum
{
  FLCTL_EXIT_OK      = 0,
  FLCTL_EXIT_REFUSED = 1,
  FLCTL_EXIT_USAGE   = 2,
  FLCTL_EXIT_IO      = 74,
  FLCTL_EXIT_BUSY    = 75,
};

/* Subcommands: each runs what flctl_args_parse() (flctl-args.c) accepted. */
int             flctl_run_main             (const FlctlArgs     *args);
int             flctl_status_main          (const FlctlArgs     *args);
int             flctl_list_main            (const FlctlArgs     *args);
int             flctl_list_kernel_main     (const FlctlArgs     *args);
int             flctl_reclaim_main         (const FlctlArgs     *args);
int             flctl_clean_main           (const FlctlArgs     *args);
int             flctl_watch_main           (const FlctlArgs     *args);
int             flctl_demo_main            (const FlctlArgs     *args);
int             flctl_hold_main            (const FlctlArgs     *args);

/* flctl.c: errors and helpers shared by the subcommands */
int             flctl_usage_error          (const char          *command,
                                            const char          *format,
                                            ...) G_GNUC_PRINTF (2, 3);
int             flctl_exit_status_for_error (const GError       *error);
int             flctl_report_error         (const char          *command,
                                            const GError        *error);
gboolean        flctl_error_is_not_found   (const GError        *error);
gboolean        flctl_confirm              (const char          *question);
gboolean        flctl_stdin_is_terminal    (void);
FlSnapshot     *flctl_snapshot_for_path    (const char          *path,
                                            const FlLockOptions *options,
                                            GError             **error);
gboolean        flctl_looks_like_lock_file (const char          *path);
/* An etcd lock or prefix: libfl reads etcd for it; it names no file. */
static inline gboolean
flctl_is_etcd (const char *operand)
{
  return g_str_has_prefix (operand, "etcd://") || g_str_has_prefix (operand, "etcds://");
}
GPtrArray      *flctl_scan_directories     (const char * const  *directories,
                                            gboolean             recursive,
                                            const char          *command,
                                            int                 *exit_status);
void            flctl_die_by_signal        (int                  signo) G_GNUC_NORETURN;

/* flctl-output.c: records, JSON and the formatting of ages, states and paths */
/* The version of the JSON records (docs/flctl-json.md): raised when a member changes meaning
 * or goes away, never when one is added. */
#define FLCTL_JSON_SCHEMA 1

char           *flctl_format_time          (gint64               unix_us);
FlctlStyle      flctl_style_for_state      (FlEntryState         state);
gboolean        flctl_use_color            (int                  fd);
int             flctl_terminal_width       (int                  fd);
const char     *flctl_style_get_sgr        (FlctlStyle           style);
char           *flctl_styled               (const char          *text,
                                            FlctlStyle           style,
                                            gboolean             color);
void            flctl_json_add_string_or_null (FlctlJson        *builder,
                                               const char       *member,
                                               const char       *value);
void            flctl_json_add_int_or_null (FlctlJson           *builder,
                                            const char          *member,
                                            gboolean             known,
                                            gint64               value);
void            flctl_json_add_schema      (FlctlJson           *builder);
void            flctl_add_snapshot_members (FlctlJson           *builder,
                                            FlSnapshot          *snapshot,
                                            const char          *state,
                                            gint64               now_us);
/* One record, an object, as the next value of @builder. */
void            flctl_snapshot_to_json     (FlctlJson           *builder,
                                            FlSnapshot          *snapshot,
                                            gint64               now_us);
void            flctl_unlocked_to_json     (FlctlJson           *builder,
                                            const char          *target);
/* Prints what @builder wrote, and a newline. */
void            flctl_print_json           (FlctlJson           *builder);
void            flctl_print_field          (const char          *label,
                                            const char          *value);
void            flctl_print_record         (FlSnapshot          *snapshot,
                                            gint64               now_us);

/* flctl-columns.c: -o and the table options of the command line */
GArray         *flctl_columns_select       (const char          *spec,
                                            gboolean             all,
                                            const char * const  *names,
                                            const guint         *defaults,
                                            guint                n_defaults,
                                            GError             **error);
FlctlTable     *flctl_table_new_for_args   (const FlctlArgs     *args);

/* flctl-listing.c: the table of list, clean and status -o */
typedef struct _FlctlListing FlctlListing;

FlctlListing   *flctl_listing_new          (const FlctlArgs     *args,
                                            GError             **error);
void            flctl_listing_add          (FlctlListing        *listing,
                                            FlSnapshot          *snapshot);
void            flctl_listing_add_unlocked (FlctlListing        *listing,
                                            const char          *target);
void            flctl_listing_print        (FlctlListing        *listing,
                                            gint64               now_us);
void            flctl_listing_free         (FlctlListing        *listing);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlctlListing, flctl_listing_free)

const char     *flctl_liveness_label       (FlSnapshot          *snapshot);
char           *flctl_describe_holder      (FlSnapshot          *snapshot,
                                            gint64               now_us);
/* An etcd lease as etcd's own tools and the lock keys show it: hex. */
char           *flctl_format_lease         (gint64               lease);

G_END_DECLS
