/* Unit tests of key files with line-precise errors (sim/base/keyfile.c) and of
 * the strict number parsers (sim/base/error.c). */
#include "sim/base/keyfile.h"
#include "sim/base/error.h"

#include <string.h>

static const char *text =
  "# a comment\n"
  "[a]\n"
  "x = 1.5\n"
  "n = 7\n"
  "\n"
  "[b]\n"
  "s = hello\n"
  "flag = true\n";

/* Lines are counted from 1 and comments and blank lines count. */
static void
test_lines (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data ("t.ini", text, -1, &e);
  g_assert_no_error (e);
  g_assert_cmpint (dps_key_file_line (kf, "a", NULL), ==, 2);
  g_assert_cmpint (dps_key_file_line (kf, "a", "n"), ==, 4);
  g_assert_cmpint (dps_key_file_line (kf, "b", "flag"), ==, 8);
  double x;
  gint64 n;
  gboolean flag;
  g_assert_true (dps_key_file_get_double (kf, "a", "x", TRUE, 0, 0, 10, &x, &e));
  g_assert_cmpfloat (x, ==, 1.5);
  g_assert_true (dps_key_file_get_int (kf, "a", "n", TRUE, 0, 0, 10, &n, &e));
  g_assert_cmpint (n, ==, 7);
  g_assert_true (dps_key_file_get_bool (kf, "b", "flag", TRUE, FALSE, &flag, &e));
  g_assert_true (flag);
  /* absent and optional: the default */
  g_assert_true (dps_key_file_get_double (kf, "a", "missing", FALSE, 3.25, 0, 10, &x, &e));
  g_assert_cmpfloat (x, ==, 3.25);
}

/* A value out of range names the file, the key's line and the range. */
static void
test_range_error (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data ("t.ini", text, -1, &e);
  gint64 n;
  g_assert_false (dps_key_file_get_int (kf, "a", "n", TRUE, 0, 0, 5, &n, &e));
  g_assert_error (e, DPS_ERROR, DPS_ERROR_INPUT);
  g_assert_nonnull (strstr (e->message, "t.ini:4: [a] n:"));
  g_assert_nonnull (strstr (e->message, "0 to 5"));
}

/* What GKeyFile would accept silently is refused with the line. */
static void
test_refused (void)
{
  static const struct { const char *text, *expect; } cases[] = {
    { "[a]\nx = 1\n[a]\ny = 2\n", "t.ini:3: group [a] appears twice (first on line 1)" },
    { "[a]\nx = 1\nx = 2\n", "t.ini:3: [a] x is set twice (first on line 2)" },
    { "x = 1\n", "t.ini:1: a key before the first [group]" },
    { "[a]\njunk\n", "t.ini:2: expected 'key = value'" },
    { "[a\n", "t.ini:1: expected a group header" },
    { "[a]\nx = \x01\x02\0zz", "binary data" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) e = NULL;
    gssize len = i == G_N_ELEMENTS (cases) - 1 ? 14 : -1;
    g_autoptr (DpsKeyFile) kf = dps_key_file_load_data ("t.ini", cases[i].text, len, &e);
    g_assert_null (kf);
    g_assert_nonnull (e);
    if (!strstr (e->message, cases[i].expect))
      g_test_fail_printf ("case %zu: '%s' lacks '%s'", i, e->message, cases[i].expect);
  }
}

/* Unknown keys are named with their line. */
static void
test_unknown_key (void)
{
  g_autoptr (GError) e = NULL;
  g_autoptr (DpsKeyFile) kf = dps_key_file_load_data ("t.ini", text, -1, &e);
  const char *const allowed[] = { "x", NULL };
  g_assert_false (dps_key_file_check_keys (kf, "a", allowed, &e));
  g_assert_nonnull (strstr (e->message, "t.ini:4: [a] n: unknown key"));
}

/* Numbers: whole strings only, finite, in range. */
static void
test_numbers (void)
{
  double d;
  gint64 i;
  guint64 b;
  g_assert_true (dps_parse_double (" 2.5e3 ", &d));
  g_assert_cmpfloat (d, ==, 2500);
  g_assert_false (dps_parse_double ("2.5x", &d));
  g_assert_false (dps_parse_double ("nan", &d));
  g_assert_false (dps_parse_double ("inf", &d));
  g_assert_false (dps_parse_double ("1e999", &d));
  g_assert_false (dps_parse_double ("", &d));
  g_assert_true (dps_parse_int ("-42", &i));
  g_assert_cmpint (i, ==, -42);
  g_assert_false (dps_parse_int ("4.2", &i));
  g_assert_false (dps_parse_int ("99999999999999999999", &i));
  /* sizes as nccl-tests reads them: K, M, G are powers of 1024 */
  g_assert_true (dps_parse_size ("8", &b));
  g_assert_cmpuint (b, ==, 8);
  g_assert_true (dps_parse_size ("128K", &b));
  g_assert_cmpuint (b, ==, 131072);
  g_assert_true (dps_parse_size ("8G", &b));
  g_assert_cmpuint (b, ==, 8ull << 30);
  g_assert_true (dps_parse_size ("64MiB", &b));
  g_assert_cmpuint (b, ==, 64ull << 20);
  g_assert_false (dps_parse_size ("-1", &b));
  g_assert_false (dps_parse_size ("1.3", &b));
  g_assert_false (dps_parse_size ("12Q", &b));
  g_autofree char *s = dps_format_size (3ull << 20);
  g_assert_cmpstr (s, ==, "3M");
}

/* An error about a quantity carries it as data (error.h): its field and
 * kind come back from the code whatever the message says, its words open
 * the message, and marking an error set elsewhere keeps its kind. */
static void
test_field_errors (void)
{
  for (int f = DPS_FIELD_NONE + 1; f < DPS_FIELD_COUNT; f++) {
    g_autoptr (GError) e = NULL;
    g_assert_false (dps_set_field_error (&e, (DpsField) f, DPS_ERROR_LIMIT, "%d too many", 3));
    g_assert_cmpint (dps_error_field (e), ==, f);
    g_assert_cmpint (dps_error_kind (e), ==, DPS_ERROR_LIMIT);
    g_autofree char *want = g_strconcat (dps_field_words ((DpsField) f), "3 too many", NULL);
    g_assert_cmpstr (e->message, ==, want);
    g_assert_cmpuint (strlen (dps_field_words ((DpsField) f)), >, 1);
  }
  g_autoptr (GError) io = g_error_new (DPS_ERROR, DPS_ERROR_IO, "trace file t.json: No space left on device");
  g_assert_cmpint (dps_error_field (io), ==, DPS_FIELD_NONE);
  dps_error_set_field (io, DPS_FIELD_TRACE);
  g_assert_cmpint (dps_error_field (io), ==, DPS_FIELD_TRACE);
  g_assert_cmpint (dps_error_kind (io), ==, DPS_ERROR_IO);
  /* the same words without the field: no field */
  g_autoptr (GError) plain = g_error_new (DPS_ERROR, DPS_ERROR_INPUT, "GPU count: 3");
  g_assert_cmpint (dps_error_field (plain), ==, DPS_FIELD_NONE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/keyfile/lines", test_lines);
  g_test_add_func ("/error/fields", test_field_errors);
  g_test_add_func ("/keyfile/range-error", test_range_error);
  g_test_add_func ("/keyfile/refused", test_refused);
  g_test_add_func ("/keyfile/unknown-key", test_unknown_key);
  g_test_add_func ("/keyfile/numbers", test_numbers);
  return g_test_run ();
}
