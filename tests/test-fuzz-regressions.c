/* test-fuzz-regressions.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Replays every seed (tests/fuzz/corpus/TARGET/…) and every input the
 * fuzzers once failed on (tests/fuzz/regressions/TARGET/…) through the same
 * checking entry points as the libFuzzer targets (tests/fuzz/fuzz-entry-*.c),
 * one subtest per file. Needs no clang: it runs in every `make test`.
 */
#include "config.h"

#include <string.h>

#include "fuzz/fuzz-entry.h"

typedef struct
{
  const char  *name;
  RivFuzzFunc  func;
} Target;

static const Target targets[] = {
  { "sse-reader", riv_fuzz_sse_reader },
  { "message", riv_fuzz_message },
  { "diff", riv_fuzz_diff },
  { "config", riv_fuzz_config },
  { "server-body", riv_fuzz_server_body },
  { "wire", riv_fuzz_wire },
  { "upload", riv_fuzz_upload },
};

typedef struct
{
  const Target *target;
  char         *path;
} Replay;

static void
replay_free (gpointer data)
{
  Replay *replay = data;

  g_free (replay->path);
  g_free (replay);
}

static void
test_replay (gconstpointer data)
{
  const Replay *replay = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree guint8 *copy = NULL;
  gsize length = 0;

  g_assert_true (g_file_get_contents (replay->path, &contents, &length, &error));
  g_assert_no_error (error);

  /* An exact-size heap copy, as libFuzzer passes it, so that a read past
   * the end is caught under ASan instead of hitting the NUL g_file_get_contents
   * adds. */
  copy = g_memdup2 (contents, length);
  g_test_message ("replaying %s (%zu bytes)", replay->path, length);
  replay->target->func (copy, length);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements. */
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* Adds one subtest per file in tests/fuzz/KIND/TARGET. */
static void
add_dir (const Target *target,
         const char   *kind)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "fuzz", kind, target->name, NULL);
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (listing == NULL)
    return;
  while ((name = g_dir_read_name (listing)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      Replay *replay = g_new0 (Replay, 1);
      g_autofree char *test_path = NULL;

      replay->target = target;
      replay->path = g_build_filename (dir, names->pdata[i], NULL);
      test_path = g_strdup_printf ("/fuzz/%s/%s/%s", target->name, kind, (char *) names->pdata[i]);
      g_test_add_data_func_full (test_path, replay, test_replay, replay_free);
    }
}

static void
test_corpus_present (gconstpointer data)
{
  const Target *target = data;
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "fuzz", "corpus", target->name, NULL);
  g_autoptr(GDir) listing = NULL;
  g_autoptr(GError) error = NULL;
  guint n = 0;

  /* Every target has seeds; they are replayed like regressions and must pass. */
  listing = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while (g_dir_read_name (listing) != NULL)
    n++;
  g_assert_cmpuint (n, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *path = g_strdup_printf ("/fuzz/%s/corpus-present", targets[i].name);

      g_test_add_data_func (path, &targets[i], test_corpus_present);
      add_dir (&targets[i], "corpus");
      add_dir (&targets[i], "regressions");
    }

  return g_test_run ();
}
