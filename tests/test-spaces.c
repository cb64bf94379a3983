/* test-spaces.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hugging Face Spaces by name (issue 40): rivulet-cli --url OWNER/SPACE
 * against a fake Hub on loopback (HF_ENDPOINT, riv-test-hub.h) for Spaces
 * that run (on the embedded server), build then run, sleep until visited,
 * are paused, crashed, private, missing, or fail their jobs on ZeroGPU
 * quotas (a stand-in app); the spellings, the Hub's replies and the ZeroGPU
 * error class read directly.
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "riv-load-stats.h"
#include "riv-space.h"
#include "riv-test-auth-server.h"
#include "riv-test-hub.h"
#include "riv-test-served.h"
#include "riv-test-util.h"

#define HF_SECRET RIV_TEST_HF_TOKEN
#define CLI_TIMEOUT_S 60.0

typedef struct
{
  RivTestServed  served;        /* the embedded server: the running Spaces' app */
  AuthServer     app;           /* a stand-in app: the private, sleeping and ZeroGPU Spaces' */
  RivTestHub     hub;
} Fixture;

static const char * const zerogpu_texts[] = {
  /* Today's wording (its title is "ZeroGPU quota exceeded"), then the older one. */
  "You have exceeded your free GPU quota (60s requested vs. 12s left). Try again in 0:01:05",
  "You have exceeded your GPU quota (150s left vs. 200s requested). Please retry in 0:02:13",
  NULL
};

static void
fixture_setup (Fixture       *fx,
               gconstpointer  data)
{
  riv_test_served_start (&fx->served, NULL, "riv-test-spaces");
  fx->app.no_auth = TRUE;
  fx->app.hf_token = HF_SECRET;
  auth_server_start (&fx->app);
  fx->hub.running_host = fx->served.url;
  fx->hub.app = &fx->app;
  riv_test_hub_start (&fx->hub);
}

static void
fixture_teardown (Fixture       *fx,
                  gconstpointer  data)
{
  riv_test_hub_stop (&fx->hub);
  auth_server_stop (&fx->app);
  riv_test_served_stop (&fx->served);
}

/* rivulet-cli with the fake Hub as HF_ENDPOINT, HF_HOME the scratch folder
 * (no token file unless a test writes one), and extra (nullable) lines of
 * environment. */
static void
run_cli (Fixture    *fx,
         RivTestCliRun *run,
         const char *extra,
         const char *first,
         ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autofree char *env = g_strdup_printf ("HF_ENDPOINT=%s\nHF_HOME=%s%s%s", fx->hub.url,
                                          fx->served.dir, extra != NULL ? "\n" : "",
                                          extra != NULL ? extra : "");
  va_list ap;

  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  run->status = riv_test_run_cli_env (env, (const char * const *) args->pdata, &run->out,
                                      &run->err, CLI_TIMEOUT_S);
}

/* The running Space: inspect lists the embedded server's endpoints. */
static void
test_running (Fixture       *fx,
              gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };

  run_cli (fx, &run, NULL, "inspect", "--url", "demo/running", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "fake_diffusion"));
  g_assert_nonnull (strstr (run.err, "Space demo/running is at http://127.0.0.1:"));
  g_assert_cmpuint (fx->hub.n_requests, ==, 1);   /* the info says RUNNING: no runtime asked */
  g_assert_cmpuint (fx->hub.n_bearer, ==, 0);     /* no token anywhere: none sent */
}

/* The Hub's page of the Space, as a browser shows it, names it too. */
static void
test_hub_page (Fixture       *fx,
               gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *page = g_strdup_printf ("%s/spaces/demo/running/", fx->hub.url);

  run_cli (fx, &run, NULL, "load", "--url", page, "--endpoint", "batch_echo", "--count", "2",
           "--data", "[\"x {i}\", 0.01]", "--json", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.out, "\"completed\":2"));
}

/* Building, then running: said while waiting, then connected. */
static void
test_building (Fixture       *fx,
               gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };

  run_cli (fx, &run, NULL, "inspect", "--url", "demo/building", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "Space demo/building is building (stage BUILDING); "
                                     "waiting up to 300 s"));
  g_assert_nonnull (strstr (run.out, "fake_diffusion"));
  g_assert_cmpuint (fx->hub.building_polls, ==, 2);
}

/* --space-wait ends the wait with the stage named. */
static void
test_building_timeout (Fixture       *fx,
                       gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  double start = g_get_monotonic_time () / 1e6;

  run_cli (fx, &run, NULL, "inspect", "--url", "demo/forever-building", "--space-wait", "1.5",
           NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "Space demo/forever-building still building after 2 s"));
  g_assert_cmpfloat (g_get_monotonic_time () / 1e6 - start, <, 10);
}

/* Asleep: woken by a visit to its app, then connected. */
static void
test_asleep (Fixture       *fx,
             gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };

  run_cli (fx, &run, NULL, "inspect", "--url", "demo/asleep", NULL);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (strstr (run.err, "Space demo/asleep is asleep; waking it (stage SLEEPING)"));
  g_assert_nonnull (strstr (run.out, "predict"));
}

/* Paused, crashed, no app file: one line with the stage, exit 1. */
static void
test_failed_stages (Fixture       *fx,
                    gconstpointer  data)
{
  static const struct { const char *id; const char *says; } cases[] = {
    { "demo/paused", "Space demo/paused has been paused by its owner (stage PAUSED)" },
    { "demo/crashed", "Space demo/crashed has crashed (runtime error) (stage RUNTIME_ERROR): "
                      "Exit code: 1. Reason: ModuleNotFoundError: No module named 'torch'" },
    { "demo/no-app", "Space demo/no-app has no app file (stage NO_APP_FILE)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (fx, &run, NULL, "load", "--url", cases[i].id, "--endpoint", "predict",
               "--count", "1", NULL);
      g_assert_cmpint (run.status, ==, 1);
      g_assert_nonnull (strstr (run.err, cases[i].says));
      g_assert_true (g_str_has_suffix (run.err, "\n"));
      g_assert_cmpint (strchr (run.err, '\n') - run.err, ==, strlen (run.err) - 1);
    }
}

/* Missing: the Hub's reason (its X-Error-Message and code), and the hint. */
static void
test_missing (Fixture       *fx,
              gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };

  run_cli (fx, &run, NULL, "inspect", "--url", "demo/nowhere", NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.err, "Space demo/nowhere: the Hub at "));
  g_assert_nonnull (strstr (run.err, "answered HTTP 404, RepoNotFound: Repository not found; "
                                     "if it is private, give a Hugging Face token"));
}

/* Private: refused without a token (the Hub's reason), then with the token
 * from each source: to the Hub as Authorization, to every request of the app
 * as x-hf-authorization, and printed nowhere. */
static void
test_private (Fixture       *fx,
              gconstpointer  data)
{
  g_autofree char *token_file = g_build_filename (fx->served.dir, "token", NULL);
  g_autofree char *other_file = g_build_filename (fx->served.dir, "elsewhere", NULL);
  g_autofree char *path_env = g_strdup_printf ("HF_TOKEN_PATH=%s", other_file);

  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, NULL, "inspect", "--url", "demo/private", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "HTTP 401, RepoNotFound: Repository not found; if it is "
                                       "private, give a Hugging Face token"));
    g_assert_cmpuint (fx->app.n_requests, ==, 0);
  }
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, NULL, "inspect", "--url", "demo/private", "--hf-token", "hf_wrong", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "the Hub refused the token given"));
    g_assert_null (strstr (run.err, "hf_wrong"));
  }
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, NULL, "load", "--url", "demo/private", "--hf-token", HF_SECRET,
             "--endpoint", "predict", "--count", "1", "--json", NULL);
    g_assert_cmpint (run.status, ==, 0);
    g_assert_nonnull (strstr (run.out, "\"completed\":1"));
    g_assert_null (strstr (run.out, HF_SECRET));
    g_assert_null (strstr (run.err, HF_SECRET));
  }
  g_assert_cmpuint (fx->hub.n_bearer, ==, 1);
  g_assert_cmpuint (fx->app.n_requests, >=, 4);   /* config, info, join, stream */
  g_assert_cmpuint (fx->app.n_hf_bearer, ==, fx->app.n_requests);
  g_assert_cmpuint (fx->app.n_bearer, ==, 0);     /* the app's own Authorization stays unset */
  g_assert_cmpuint (fx->hub.n_hf_header, ==, 0);

  /* HF_TOKEN, then the token file ($HF_HOME/token), then HF_TOKEN_PATH. */
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, "HF_TOKEN=" HF_SECRET, "inspect", "--url", "demo/private", NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
  g_assert_true (g_file_set_contents (token_file, HF_SECRET "\n", -1, NULL));
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, NULL, "inspect", "--url", "demo/private", NULL);
    g_assert_cmpint (run.status, ==, 0);
  }
  g_assert_true (g_file_set_contents (other_file, "hf_wrong\n", -1, NULL));
  {
    g_auto(RivTestCliRun) run = { 0 };

    run_cli (fx, &run, path_env, "inspect", "--url", "demo/private", NULL);
    g_assert_cmpint (run.status, ==, 1);
    g_assert_nonnull (strstr (run.err, "the Hub refused the token given"));
  }
  g_assert_cmpuint (fx->hub.n_bearer, ==, 3);
  g_assert_cmpuint (fx->app.n_hf_bearer, ==, fx->app.n_requests);
  g_assert_true (g_remove (token_file) == 0 && g_remove (other_file) == 0);
}

/* Bad names, a bad HF_ENDPOINT, and Hub replies that are not the Hub's:
 * clear errors, the right exit status. */
static void
test_bad_input (Fixture       *fx,
                gconstpointer  data)
{
  static const struct { const char *url; const char *env; int status; const char *says; } cases[] = {
    { "owner/", NULL, 2, "\"owner/\" is not a Space's name: a Space is OWNER/NAME" },
    { "a/b/c", NULL, 2, "\"a/b/c\" is not a Space's name" },
    { "own--er/x", NULL, 2, "\"own--er/x\" is not a Space's name: an owner and a name hold" },
    { "demo/running", "HF_ENDPOINT=huggingface", 2,
      "HF_ENDPOINT \"huggingface\" is not the Hub's address" },
    { "demo/running", "HF_ENDPOINT=ftp://127.0.0.1/", 2, "is not the Hub's address" },
    { "demo/not-json", NULL, 1,
      "Space demo/not-json: The Hub's reply about the Space's info is not a JSON object" },
    { "demo/no-host", NULL, 1, "Space demo/no-host: The Hub's info names no host for the Space" },
    { "demo/running", "HF_ENDPOINT=http://127.0.0.1:9", 1,
      "Space demo/running: the Hub at http://127.0.0.1:9 could not be reached" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(RivTestCliRun) run = { 0 };

      run_cli (fx, &run, cases[i].env, "inspect", "--url", cases[i].url, NULL);
      g_assert_cmpint (run.status, ==, cases[i].status);
      g_assert_nonnull (strstr (run.err, cases[i].says));
    }
  /* A server's address is still one: a port, a dot or a scheme says so. */
  g_assert_false (riv_space_is_spelled ("127.0.0.1:7860/app", NULL));
  g_assert_false (riv_space_is_spelled ("example.org/app", NULL));
  g_assert_false (riv_space_is_spelled ("localhost/app", NULL));
  g_assert_false (riv_space_is_spelled ("http://example.org/spaces/a/b", NULL));
  g_assert_false (riv_space_is_spelled ("gpu-box", NULL));
  g_assert_true (riv_space_is_spelled ("https://huggingface.co/spaces/gradio/hello_world", NULL));
  g_assert_true (riv_space_is_spelled (" gradio/hello_world", NULL));
}

/* The Hub's replies read directly: host or subdomain, stage, errors. */
static void
test_parse (void)
{
  g_autofree char *host = NULL;
  g_autofree char *stage = NULL;
  g_autofree char *message = NULL;
  g_autofree char *id = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (riv_space_parse_info ("{\"subdomain\":\"gradio-hello-world\",\"runtime\":"
                                       "{\"stage\":\"SLEEPING\"}}", -1, &host, &stage, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (host, ==, "https://gradio-hello-world.hf.space");
  g_assert_cmpstr (stage, ==, "SLEEPING");
  g_clear_pointer (&host, g_free);
  g_clear_pointer (&stage, g_free);
  g_assert_true (riv_space_parse_info ("{\"host\":\"https://x.hf.space\",\"runtime\":null}", -1,
                                       &host, &stage, &error));
  g_assert_cmpstr (host, ==, "https://x.hf.space");
  g_assert_null (stage);
  g_clear_pointer (&host, g_free);
  g_assert_false (riv_space_parse_info ("{\"host\":\"javascript:alert(1)\"}", -1, &host, &stage,
                                        &error));
  g_assert_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY);
  g_clear_error (&error);
  g_assert_false (riv_space_parse_info ("[]", -1, &host, &stage, &error));
  g_assert_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY);
  g_clear_error (&error);
  g_assert_false (riv_space_parse_runtime ("{\"stage\":7}", -1, &stage, &message, &error));
  g_assert_error (error, RIV_SPACE_ERROR, RIV_SPACE_ERROR_BAD_REPLY);
  g_clear_error (&error);
  g_assert_true (riv_space_parse_runtime ("{\"stage\":\"BUILD_ERROR\",\"errorMessage\":\"pip\"}",
                                          -1, &stage, &message, &error));
  g_assert_cmpstr (stage, ==, "BUILD_ERROR");
  g_assert_cmpstr (message, ==, "pip");

  g_assert_cmpint (riv_space_stage_state ("RUNNING_BUILDING"), ==, RIV_SPACE_RUNNING);
  g_assert_cmpint (riv_space_stage_state ("APP_STARTING"), ==, RIV_SPACE_WAIT);
  g_assert_cmpint (riv_space_stage_state ("STOPPED"), ==, RIV_SPACE_WAKE);
  g_assert_cmpint (riv_space_stage_state ("CONFIG_ERROR"), ==, RIV_SPACE_FAILED);
  g_assert_cmpint (riv_space_stage_state ("SOMETHING_NEW"), ==, RIV_SPACE_FAILED);

  id = riv_space_parse_id ("http://127.0.0.1:8/spaces/a/b.c_d", "http://127.0.0.1:8", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, "a/b.c_d");
}

/* ZeroGPU quota errors, both wordings, counted as one class: in the
 * summary, --json's errors, and the report. */
static void
test_zerogpu (Fixture       *fx,
              gconstpointer  data)
{
  g_auto(RivTestCliRun) run = { 0 };
  g_autofree char *report = g_build_filename (fx->served.dir, "report.html", NULL);
  g_autofree char *html = NULL;

  fx->app.fail_texts = zerogpu_texts;
  run_cli (fx, &run, NULL, "load", "--url", "demo/zerogpu", "--endpoint", "predict",
           "--users", "4", "--iterations", "1", "--json", "--report", report, NULL);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_nonnull (strstr (run.out, "\"failed\":4"));
  g_assert_nonnull (strstr (run.out, "\"errors\":[{\"error\":\"ZeroGPU quota exceeded\","
                                     "\"count\":4}]"));
  g_assert_nonnull (strstr (run.err, "4 job(s): ZeroGPU quota exceeded"));
  g_assert_true (g_file_get_contents (report, &html, NULL, NULL));
  g_assert_nonnull (strstr (html, "ZeroGPU quota exceeded"));
  g_assert_null (strstr (html, "Please retry in"));

  g_assert_cmpstr (riv_load_error_class (zerogpu_texts[0]), ==, RIV_LOAD_ERROR_ZEROGPU_QUOTA);
  g_assert_cmpstr (riv_load_error_class (zerogpu_texts[1]), ==, RIV_LOAD_ERROR_ZEROGPU_QUOTA);
  g_assert_cmpstr (riv_load_error_class ("You have exceeded your Pro GPU quota (90s requested "
                                         "vs. 30s left)."), ==, RIV_LOAD_ERROR_ZEROGPU_QUOTA);
  g_assert_cmpstr (riv_load_error_class ("ZeroGPU illegal duration: the requested GPU duration "
                                         "(300s) is larger than the maximum allowed"), ==,
                   RIV_LOAD_ERROR_ZEROGPU_QUOTA);
  g_assert_null (riv_load_error_class ("You have exceeded your disk quota"));
  g_assert_null (riv_load_error_class ("Queue is full"));
  g_assert_null (riv_load_error_class (NULL));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/spaces/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("running", test_running);
  ADD ("hub-page", test_hub_page);
  ADD ("building", test_building);
  ADD ("building-timeout", test_building_timeout);
  ADD ("asleep", test_asleep);
  ADD ("failed-stages", test_failed_stages);
  ADD ("missing", test_missing);
  ADD ("private", test_private);
  ADD ("bad-input", test_bad_input);
  ADD ("zerogpu", test_zerogpu);
#undef ADD
  g_test_add_func ("/spaces/parse", test_parse);

  return g_test_run ();
}
