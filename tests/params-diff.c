/* params-diff — compares two parameter files of `dpscale run
 * --save-params` (fp32, the model's order) element by element, for
 * test-run-strategies.sh:
 *
 *   params-diff A B   prints "COUNT MAXDIFF MAXB REL": the elements, the
 *                     largest |a - b|, the largest |b|, and their ratio
 *                     (the difference relative to the largest parameter)
 *
 * Exits 1 (and says why on stderr) when a file cannot be read or the two
 * hold different counts, 2 when either holds a NaN or an infinity (a
 * layer that read parameters not gathered, under --check-params). */
#include <glib.h>
#include <math.h>
#include <stdio.h>

int
main (int argc, char **argv)
{
  if (argc != 3) {
    fprintf (stderr, "usage: params-diff A B\n");
    return 1;
  }
  gchar *a, *b;
  gsize na, nb;
  GError *error = NULL;
  if (!g_file_get_contents (argv[1], &a, &na, &error) || !g_file_get_contents (argv[2], &b, &nb, &error)) {
    fprintf (stderr, "params-diff: %s\n", error->message);
    return 1;
  }
  if (na != nb || na % sizeof (float)) {
    fprintf (stderr, "params-diff: %s has %zu bytes, %s %zu\n", argv[1], na, argv[2], nb);
    return 1;
  }
  const float *x = (const float *) a, *y = (const float *) b;
  gsize n = na / sizeof (float);
  double maxdiff = 0, maxb = 0;
  gboolean finite = TRUE;
  for (gsize i = 0; i < n; i++) {
    finite = finite && isfinite (x[i]) && isfinite (y[i]);
    maxdiff = MAX (maxdiff, fabs ((double) x[i] - y[i]));
    maxb = MAX (maxb, fabs (y[i]));
  }
  printf ("%zu %.9g %.9g %.9g\n", n, maxdiff, maxb, maxb > 0 ? maxdiff / maxb : maxdiff);
  if (!finite)
    fprintf (stderr, "params-diff: %s or %s holds a NaN or an infinity\n", argv[1], argv[2]);
  g_free (a);
  g_free (b);
  return finite ? 0 : 2;
}
