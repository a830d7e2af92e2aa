/* fl-format.c: the words for an entry (its age, its state, its enums), for every program that
 * shows one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fl-enum-types.h"
#include "fl-format-private.h"

/**
 * fl_format_age:
 * @age_us: an age in microseconds (negative, from a clock step, counts as 0)
 *
 * Formats an age as libfl's messages, flctl and the Lock Inspector all show it: whole seconds
 * below a minute ("42 s"), then minutes ("3 min"), hours below two days ("47 h"), then days
 * ("5 days"). Rounded down, so a lock is never shown older than it is. The units come from
 * libfl's translation domain (the "libfl-1" catalogue), with the plural of days chosen for the
 * language.
 *
 * Returns: (transfer full): the text; free it with g_free()
 *
 * Since: 0.1
 */
char *
fl_format_age (gint64 age_us)
{
  gint64 s = MAX (age_us, 0) / G_USEC_PER_SEC;
  gint64 days = MIN (s / 86400, G_MAXINT);

  if (s < 60)
    return g_strdup_printf (_("%d s"), (int) s);
  if (s < 60 * 60)
    return g_strdup_printf (_("%d min"), (int) (s / 60));
  if (s < 48 * 60 * 60)
    return g_strdup_printf (_("%d h"), (int) (s / (60 * 60)));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d day", "%d days", (gulong) days),
                          (int) days);
}

/* libfl's own messages say ages the same way. */
char *
_fl_format_age (gint64 age_us)
{
  return fl_format_age (age_us);
}

/* The generated enum types already carry a nick for every value: the stable strings are those,
 * not a second table that could drift from the enum. */
static const char *
enum_nick (GType       type,
           int         value,
           const char *fallback)
{
  GEnumClass *klass = g_type_class_ref (type);
  GEnumValue *found = g_enum_get_value (klass, value);
  const char *nick = found != NULL ? found->value_nick : fallback;

  /* Static types are never finalized: the nick outlives the reference. */
  g_type_class_unref (klass);
  return nick;
}

/**
 * fl_entry_kind_to_string:
 * @kind: a kind of entry
 *
 * The name of a kind of entry, as scripts see it.
 *
 * Returns: the stable name of @kind: "lock", "temp", "graveyard" or "foreign" ("unknown" for a
 *   value outside the enumeration); what flctl's JSON says
 *
 * Since: 0.1
 */
const char *
fl_entry_kind_to_string (FlEntryKind kind)
{
  return enum_nick (FL_TYPE_ENTRY_KIND, kind, "unknown");
}

/**
 * fl_liveness_to_string:
 * @liveness: a liveness
 *
 * The name of a liveness, as scripts see it.
 *
 * Returns: the stable name of @liveness: "unknown", "alive", "dead" or "reused"
 *
 * Since: 0.1
 */
const char *
fl_liveness_to_string (FlLiveness liveness)
{
  return enum_nick (FL_TYPE_LIVENESS, liveness, "unknown");
}

/**
 * fl_kernel_lock_to_string:
 * @kernel_lock: what the kernel lock probe saw
 *
 * The name of a kernel lock probe's result, as scripts see it.
 *
 * Returns: the stable name of @kernel_lock: "unknown", "held" or "free"
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_to_string (FlKernelLock kernel_lock)
{
  return enum_nick (FL_TYPE_KERNEL_LOCK, kernel_lock, "unknown");
}

/**
 * fl_entry_state_to_string:
 * @state: a state
 *
 * The name of a state, as scripts see it: never translated, never changed.
 *
 * Returns: the stable name of @state: "held", "active", "stale", "orphan", "unknown", "free" or
 *   "foreign"; what flctl prints and scripts compare against
 *
 * Since: 0.1
 */
const char *
fl_entry_state_to_string (FlEntryState state)
{
  return enum_nick (FL_TYPE_ENTRY_STATE, state, "unknown");
}

/**
 * fl_kernel_lock_type_to_string:
 * @type: the kind of a kernel lock
 *
 * The name of a kind of kernel lock, as lslocks and scripts see it.
 *
 * Returns: "flock", "posix", "ofd", "lease", "deleg" or "unknown"
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_type_to_string (FlKernelLockType type)
{
  return enum_nick (FL_TYPE_KERNEL_LOCK_TYPE, type, "unknown");
}

/**
 * fl_kernel_lock_mode_to_string:
 * @mode: the mode of a kernel lock
 *
 * The name of a kernel lock's mode, as lslocks and scripts see it.
 *
 * Returns: "read", "write" or "none"
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_mode_to_string (FlKernelLockMode mode)
{
  return enum_nick (FL_TYPE_KERNEL_LOCK_MODE, mode, "none");
}

/**
 * fl_lock_format_to_string:
 * @format: a lock file's format
 *
 * The name of a lock file's format, as scripts and flctl's JSON see it.
 *
 * Returns: the stable name of @format: "libfl", "git", "libreoffice", "emacs", "mozilla",
 *   "dpkg", "flock" or "uucp"
 *
 * Since: 0.1
 */
const char *
fl_lock_format_to_string (FlLockFormat format)
{
  return enum_nick (FL_TYPE_LOCK_FORMAT, format, "libfl");
}

/* The translated label of @value in a table indexed by the enum, @fallback's for a value
 * outside it. */
static const char *
label_of (const char *const *labels,
          gsize              n_labels,
          int                value,
          int                fallback)
{
  if (value < 0 || (gsize) value >= n_labels)
    value = fallback;
  return g_dgettext (GETTEXT_PACKAGE, labels[value]);
}

/**
 * fl_entry_state_get_label:
 * @state: a state
 *
 * The state's label, as the inspector's State column and flctl show it.
 *
 * Returns: the state in one translated word for a person ("Held", "Stale"...), in libfl's
 *   translation domain
 *
 * Since: 0.1
 */
const char *
fl_entry_state_get_label (FlEntryState state)
{
  static const char *const labels[] = {
    [FL_ENTRY_STATE_HELD] = N_("Held"),
    [FL_ENTRY_STATE_ACTIVE] = N_("Active"),
    [FL_ENTRY_STATE_STALE] = N_("Stale"),
    [FL_ENTRY_STATE_ORPHAN] = N_("Orphan"),
    [FL_ENTRY_STATE_UNKNOWN] = N_("Unknown"),
    [FL_ENTRY_STATE_FOREIGN] = N_("Foreign"),
    [FL_ENTRY_STATE_FREE] = N_("Free"),
  };

  return label_of (labels, G_N_ELEMENTS (labels), state, FL_ENTRY_STATE_UNKNOWN);
}

/**
 * fl_entry_kind_get_label:
 * @kind: a kind of entry
 *
 * The kind's label, as the inspector and flctl show it.
 *
 * Returns: what the entry is, translated, for a person ("Lock file", "Temp file"...)
 *
 * Since: 0.1
 */
const char *
fl_entry_kind_get_label (FlEntryKind kind)
{
  static const char *const labels[] = {
    [FL_ENTRY_LOCK] = N_("Lock file"),
    [FL_ENTRY_TEMP] = N_("Temp file"),
    [FL_ENTRY_GRAVEYARD] = N_("Graveyard file"),
    [FL_ENTRY_FOREIGN] = N_("Foreign entry"),
    [FL_ENTRY_OTHER_PROGRAM] = N_("Another program's lock file"),
  };

  return label_of (labels, G_N_ELEMENTS (labels), kind, FL_ENTRY_FOREIGN);
}

/**
 * fl_lock_format_get_label:
 * @format: a lock file's format
 *
 * The program a lock file's format belongs to, for a person.
 *
 * Returns: the program whose lock file it is, for a person ("libfl", "git", "LibreOffice",
 *   "Emacs", "Firefox/Thunderbird", "dpkg/apt", "flock", "UUCP"): names, not translated
 *
 * Since: 0.1
 */
const char *
fl_lock_format_get_label (FlLockFormat format)
{
  static const char *const labels[] = {
    [FL_LOCK_FORMAT_LIBFL] = "libfl",
    [FL_LOCK_FORMAT_GIT] = "git",
    [FL_LOCK_FORMAT_LIBREOFFICE] = "LibreOffice",
    [FL_LOCK_FORMAT_EMACS] = "Emacs",
    [FL_LOCK_FORMAT_MOZILLA] = "Firefox/Thunderbird",
    [FL_LOCK_FORMAT_DPKG] = "dpkg/apt",
    [FL_LOCK_FORMAT_FLOCK] = "flock",
    [FL_LOCK_FORMAT_UUCP] = "UUCP",
  };

  if ((guint) format >= G_N_ELEMENTS (labels))
    format = FL_LOCK_FORMAT_LIBFL;
  return labels[format];
}

/* What another program's lock file is, who removes it and what to do when it is stuck,
 * translated; "" for libfl's own. */
const char *
_fl_lock_format_get_explanation (FlLockFormat format)
{
  switch (format)
    {
    case FL_LOCK_FORMAT_GIT:
      return _("A git lock: a git command is changing the repository's index or a reference, "
               "and removes the file when it ends. If no git process runs in this repository "
               "(and no editor or tool that runs git), a git command was killed: remove the "
               "file by hand.");
    case FL_LOCK_FORMAT_LIBREOFFICE:
      return _("A LibreOffice lock: the person named has the document open, and LibreOffice "
               "removes the file when it closes the document. If that LibreOffice is no longer "
               "running on the host named, open the document anyway (LibreOffice offers it) or "
               "remove the file by hand.");
    case FL_LOCK_FORMAT_EMACS:
      return _("An Emacs edit lock: the user named is editing the file in Emacs on the host "
               "named; Emacs removes it when the buffer is saved or killed. If that Emacs has "
               "exited, Emacs itself offers to steal the lock the next time the file is edited.");
    case FL_LOCK_FORMAT_MOZILLA:
      return _("A Firefox or Thunderbird profile lock: the profile is open while a process "
               "holds the kernel lock on its .parentlock. If none does, the program starts "
               "normally and cleans up; if it still says the profile is in use, quit it on the "
               "host named and remove the lock link by hand.");
    case FL_LOCK_FORMAT_DPKG:
      return _("A dpkg or apt lock: the file always exists and only its kernel lock counts, "
               "held while a package manager runs. Never remove it: wait for the process "
               "holding it to finish.");
    case FL_LOCK_FORMAT_FLOCK:
      return _("A lock file used with a kernel lock, as flock(1) does: only the kernel lock "
               "counts, and the kernel drops it when its holder exits. The file itself locks "
               "nothing; removing it can break the program's next lock, so leave it.");
    case FL_LOCK_FORMAT_UUCP:
      return _("A serial port lock, as UUCP, minicom, pppd and cu write it: the process it names "
               "is using the device, and removes the file when it closes it. If that process has "
               "exited, the next program that opens the port removes the lock itself, or remove "
               "it by hand.");
    case FL_LOCK_FORMAT_LIBFL:
    default:
      return "";
    }
}

/**
 * fl_kernel_lock_get_label:
 * @kernel_lock: what the kernel lock probe saw
 *
 * The kernel lock probe's result, as the inspector and flctl show it.
 *
 * Returns: the probe's result, translated, for a person ("Held", "Free", "Not probed")
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_get_label (FlKernelLock kernel_lock)
{
  static const char *const labels[] = {
    [FL_KERNEL_LOCK_UNKNOWN] = N_("Not probed"),
    [FL_KERNEL_LOCK_HELD] = N_("Held"),
    [FL_KERNEL_LOCK_FREE] = N_("Free"),
  };

  return label_of (labels, G_N_ELEMENTS (labels), kernel_lock, FL_KERNEL_LOCK_UNKNOWN);
}

/**
 * fl_kernel_lock_mode_get_label:
 * @mode: the mode of a kernel lock (fl_list_kernel_locks())
 *
 * The mode's label, as the inspector's Kernel Locks view shows it.
 *
 * Returns: a translated label: "Shared (read)", "Exclusive (write)" or "None"
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_mode_get_label (FlKernelLockMode mode)
{
  static const char *const labels[] = {
    [FL_KERNEL_LOCK_MODE_READ] = N_("Shared (read)"),
    [FL_KERNEL_LOCK_MODE_WRITE] = N_("Exclusive (write)"),
    [FL_KERNEL_LOCK_MODE_NONE] = N_("None"),
  };

  return label_of (labels, G_N_ELEMENTS (labels), mode, FL_KERNEL_LOCK_MODE_NONE);
}

/**
 * fl_entry_state_is_problem:
 * @state: a state
 *
 * Whether a state needs an operator's attention, which the views mark.
 *
 * Returns: %TRUE for what an operator may have to look at (stale, orphan, unknown, foreign);
 *   %FALSE for a held lock, a temp being written, and another program's lock file that is free
 *   (it always exists and locks nothing by itself)
 *
 * Since: 0.1
 */
gboolean
fl_entry_state_is_problem (FlEntryState state)
{
  return state != FL_ENTRY_STATE_HELD && state != FL_ENTRY_STATE_ACTIVE &&
         state != FL_ENTRY_STATE_FREE;
}
