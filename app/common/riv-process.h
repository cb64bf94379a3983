/* riv-process.h
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A load test holds a descriptor per connection (a server per client, a
 * load generator two per virtual user): raises the open-file soft limit
 * (often 1,024) to the hard one. */
void      riv_raise_fd_limit    (void);

G_END_DECLS
