#!/bin/sh
# check-translation.sh SRCDIR: the German catalogue compiles without errors and translates
# every string the sources mark today (no untranslated or fuzzy entry). TAP output.
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..2"

if msgfmt --check -o "$tmp/de.mo" "$src/po/de.po" 2>"$tmp/err"; then
  echo "ok 1 po/de.po compiles (msgfmt --check)"
else
  echo "not ok 1 po/de.po compiles (msgfmt --check)"
  sed 's/^/# /' "$tmp/err"
fi

# The same extraction as po/meson.build's preset 'glib'.
(cd "$src" && grep -v '^#' po/POTFILES.in | grep -v '^$' > "$tmp/files" &&
 xgettext --from-code=UTF-8 --add-comments --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
   --keyword=NC_:1c,2 --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 \
   --keyword=g_dpgettext2:2c,3 -f "$tmp/files" -o "$tmp/libfl.pot") 2>"$tmp/err"
msgmerge --quiet --no-fuzzy-matching -o "$tmp/merged.po" "$src/po/de.po" "$tmp/libfl.pot" \
  2>>"$tmp/err"
missing=$(msgattrib --untranslated --no-obsolete "$tmp/merged.po" | grep -c '^msgid ')
fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$tmp/merged.po" | grep -c '^msgid ')
if [ -s "$tmp/libfl.pot" ] && [ "$missing" -eq 0 ] && [ "$fuzzy" -eq 0 ]; then
  echo "ok 2 po/de.po translates every marked string"
else
  echo "not ok 2 po/de.po translates every marked string ($missing untranslated, $fuzzy fuzzy)"
  msgattrib --untranslated --no-obsolete "$tmp/merged.po" | grep '^msgid ' | sed 's/^/# /'
  sed 's/^/# /' "$tmp/err"
fi
