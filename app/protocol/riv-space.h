/* riv-space.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Hugging Face Spaces by name: "owner/space" (or the Hub's page of it,
 * {hub}/spaces/owner/space) turned into the app's URL the way the official
 * clients do, by asking the Hub (GET {hub}/api/spaces/{id} for its host,
 * {hub}/api/spaces/{id}/runtime for its stage). The Hub is HF_ENDPOINT
 * (default https://huggingface.co); the token, unless given, is HF_TOKEN or
 * the Hub's token file. The token goes to the Hub as "Authorization: Bearer"
 * and to the app as "x-hf-authorization: Bearer" (riv_client_set_hf_token ()).
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RIV_SPACE_ERROR (riv_space_error_quark ())

typedef enum
{
  RIV_SPACE_ERROR_BAD_ID,       /* not owner/space */
  RIV_SPACE_ERROR_BAD_HUB,      /* HF_ENDPOINT is not an http(s) URL */
  RIV_SPACE_ERROR_HUB,          /* the Hub refused (missing, private), with its reason */
  RIV_SPACE_ERROR_BAD_REPLY,    /* the Hub's reply is not what the Hub sends */
  RIV_SPACE_ERROR_STAGE,        /* paused, an error stage, no app file */
  RIV_SPACE_ERROR_TIMEOUT,      /* still building or waking when the wait ended */
} RivSpaceError;

#define RIV_SPACE_DEFAULT_HUB    "https://huggingface.co"
#define RIV_SPACE_DEFAULT_WAIT_S 300.0

GQuark      riv_space_error_quark   (void);

/* Whether text is spelled as a Space rather than a server's address: no
 * scheme, no port, a "/" and before it a name without a dot that is not
 * "localhost" (owner/space, also owner/ and a/b/c, which
 * riv_space_parse_id () refuses); or an http(s) URL of hub's (NULL: the
 * default Hub's) /spaces/ pages. */
gboolean    riv_space_is_spelled    (const char  *text,
                                     const char  *hub);
/* The Space's id ("owner/space") from text as riv_space_is_spelled ()
 * accepts it; NULL with RIV_SPACE_ERROR_BAD_ID saying what is wrong. */
char       *riv_space_parse_id      (const char  *text,
                                     const char  *hub,
                                     GError     **error);
/* HF_ENDPOINT, checked, without a trailing "/" (unset or empty: the public
 * Hub); NULL with RIV_SPACE_ERROR_BAD_HUB. */
char       *riv_space_hub_from_env  (GError     **error);
/* Where the Hub's token file is: HF_TOKEN_PATH, else $HF_HOME/token, else
 * $XDG_CACHE_HOME/huggingface/token, else ~/.cache/huggingface/token. */
char       *riv_space_token_path    (void);

/* The Hub's replies read (pure; fuzzed as the "space" target). The
 * Space's info: its app URL (the "host" member, else
 * https://{subdomain}.hf.space) and the stage its "runtime" names (NULL
 * when it names none). */
gboolean    riv_space_parse_info    (const char  *body,
                                     gssize       length,
                                     char       **host,
                                     char       **stage,
                                     GError     **error);
/* The runtime: its stage and, when the Hub gives one, its error message. */
gboolean    riv_space_parse_runtime (const char  *body,
                                     gssize       length,
                                     char       **stage,
                                     char       **message,
                                     GError     **error);

typedef enum
{
  RIV_SPACE_RUNNING,
  RIV_SPACE_WAIT,         /* building, starting: wait */
  RIV_SPACE_WAKE,         /* asleep or stopped: waking it, then wait */
  RIV_SPACE_FAILED,       /* paused, errors, no app file, unknown */
} RivSpaceState;

RivSpaceState riv_space_stage_state  (const char  *stage);
/* The stage in plain words ("is building", "has been paused by its owner");
 * an unknown stage is "is in stage NAME". */
char       *riv_space_stage_describe (const char  *stage);

/* Told while resolving: what the Space is doing (stage, and a line in
 * plain words naming the Space), each time that changes. */
typedef void (*RivSpaceProgressFunc) (const char *stage,
                                      const char *message,
                                      gpointer    user_data);

/* Resolves id (as riv_space_parse_id () gives it) at hub (NULL: from the
 * environment) on the thread-default main context. token NULL: HF_TOKEN,
 * else the token file (read asynchronously), else none; "" for none.
 * Waits at most wait_s seconds for a Space that builds, starts or wakes. */
void        riv_space_resolve_async  (const char           *id,
                                      const char           *hub,
                                      const char           *token,
                                      double                wait_s,
                                      RivSpaceProgressFunc  progress,
                                      gpointer              progress_data,
                                      GDestroyNotify        progress_destroy,
                                      GCancellable         *cancellable,
                                      GAsyncReadyCallback   callback,
                                      gpointer              user_data);
/* The app's URL; *token (nullable) gets the token used, for the app
 * (NULL: none). */
char       *riv_space_resolve_finish (GAsyncResult         *result,
                                      char                **token,
                                      GError              **error);

G_END_DECLS
