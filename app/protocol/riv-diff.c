/* riv-diff.c
 * Copyright 2026 The Rivulet authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Edits are applied by path copying: the nodes of the current value are never
 * modified. Each edit builds new containers only along its path (the siblings
 * are shared by reference) and a new target, so an error at any edit simply
 * drops the partial result and the caller's value is untouched.
 *
 * Cost of one edit: O(sum of the sizes of the containers along the path) for
 * the shallow copies, plus O(size of the new target). Containers created
 * earlier in the same call are changed in place when json-glib allows it
 * (object members, list deletes and appends at the end). An "append" builds
 * the concatenated string once and json-glib copies it once more into the node;
 * it cannot be cheaper because json-glib strings are not growable. A text that
 * grows by a small suffix per yield therefore costs O(current length) per
 * yield, and nothing else in the value is copied.
 */
#include "config.h"

#include <string.h>

#include "riv-diff.h"

/* Bounds recursion when deep-copying a caller-built (mutable) value. */
#define MAX_COPY_DEPTH 4096

G_DEFINE_QUARK (riv-diff-error-quark, riv_diff_error)

typedef enum
{
  OP_REPLACE,
  OP_APPEND,
  OP_ADD,
  OP_DELETE,
} DiffOp;

typedef struct
{
  /* Container nodes created during this riv_diff_apply() call: only the
   * partial result references them, so they may be changed in place. */
  GHashTable *fresh;
} ApplyState;

static JsonNode *
deep_copy (JsonNode *node,
           guint     depth)
{
  JsonNode *copy;

  if (depth > MAX_COPY_DEPTH)
    return NULL;

  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *object = json_node_get_object (node);
        JsonObject *new_object = json_object_new ();
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init_ordered (&iter, object);
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            JsonNode *member_copy = deep_copy (member, depth + 1);

            if (member_copy == NULL)
              {
                json_object_unref (new_object);
                return NULL;
              }
            json_object_set_member (new_object, name, member_copy);
          }
        copy = json_node_new (JSON_NODE_OBJECT);
        json_node_take_object (copy, new_object);
        return copy;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);
        guint n = json_array_get_length (array);
        JsonArray *new_array = json_array_sized_new (n);

        for (guint i = 0; i < n; i++)
          {
            JsonNode *element_copy = deep_copy (json_array_get_element (array, i), depth + 1);

            if (element_copy == NULL)
              {
                json_array_unref (new_array);
                return NULL;
              }
            json_array_add_element (new_array, element_copy);
          }
        copy = json_node_new (JSON_NODE_ARRAY);
        json_node_take_array (copy, new_array);
        return copy;
      }

    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      /* Scalars hold no shared containers: json_node_copy() is deep for them. */
      return json_node_copy (node);
    }
}

/* The edit's value as a node the result may own. An immutable (sealed) node
 * cannot change, so sharing it is indistinguishable from copying it. */
static JsonNode *
import_value (JsonNode  *value,
              GError   **error)
{
  JsonNode *copy;

  if (value == NULL)
    return json_node_new (JSON_NODE_NULL);
  if (json_node_is_immutable (value))
    return json_node_ref (value);

  copy = deep_copy (value, 0);
  if (copy == NULL)
    g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID,
                         "Diff value is nested too deeply");
  return copy;
}

static gboolean
parse_op (JsonNode  *node,
          DiffOp    *op,
          GError   **error)
{
  const char *name;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID,
                           "Diff operation is not a string");
      return FALSE;
    }

  name = json_node_get_string (node);
  if (g_strcmp0 (name, "append") == 0)
    *op = OP_APPEND;
  else if (g_strcmp0 (name, "replace") == 0)
    *op = OP_REPLACE;
  else if (g_strcmp0 (name, "add") == 0)
    *op = OP_ADD;
  else if (g_strcmp0 (name, "delete") == 0)
    *op = OP_DELETE;
  else
    {
      g_set_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_UNKNOWN_OP,
                   "Unknown diff operation \"%.64s\"", name != NULL ? name : "");
      return FALSE;
    }
  return TRUE;
}

/* A path element addressing a list: a non-negative integer (an integral double
 * is accepted too). Returns FALSE if it is anything else. */
static gboolean
path_index (JsonNode *key,
            gint64   *index)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (key))
    return FALSE;

  type = json_node_get_value_type (key);
  if (type == G_TYPE_INT64)
    *index = json_node_get_int (key);
  else if (type == G_TYPE_DOUBLE)
    {
      double d = json_node_get_double (key);

      if (!(d >= 0 && d <= (double) G_MAXUINT) || d != (double) (gint64) d)
        return FALSE;
      *index = (gint64) d;
    }
  else
    return FALSE;

  return *index >= 0 && *index <= G_MAXUINT;
}

static const char *
path_key (JsonNode *key)
{
  if (!JSON_NODE_HOLDS_VALUE (key) || json_node_get_value_type (key) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (key);
}

/* Sets a BAD_PATH error and returns NULL, for "return bad_path (…);". */
static gpointer
bad_path (GError     **error,
          guint        level,
          const char  *why)
{
  g_set_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_BAD_PATH,
               "Diff path element %u: %s", level, why);
  return NULL;
}

/* The child of container addressed by key, or NULL (with error) when the key
 * has the wrong type or does not exist. */
static JsonNode *
get_child (JsonNode  *container,
           JsonNode  *key,
           guint      level,
           GError   **error)
{
  if (container != NULL && JSON_NODE_HOLDS_ARRAY (container))
    {
      JsonArray *array = json_node_get_array (container);
      gint64 index;

      if (!path_index (key, &index))
        return bad_path (error, level, "a list needs a non-negative integer index");
      if (index >= json_array_get_length (array))
        return bad_path (error, level, "list index out of range");
      return json_array_get_element (array, index);
    }

  if (container != NULL && JSON_NODE_HOLDS_OBJECT (container))
    {
      const char *name = path_key (key);
      JsonNode *child;

      if (name == NULL)
        return bad_path (error, level, "a dict needs a string key");
      child = json_object_get_member (json_node_get_object (container), name);
      if (child == NULL)
        return bad_path (error, level, "no such key");
      return child;
    }

  return bad_path (error, level, "not a list or a dict");
}

static JsonNode *
concat_strings (JsonNode   *target,
                JsonNode   *suffix,
                GError    **error)
{
  const char *a, *b;
  gsize la, lb;
  JsonNode *result;
  char *joined;

  if (target == NULL || !JSON_NODE_HOLDS_VALUE (target) ||
      json_node_get_value_type (target) != G_TYPE_STRING)
    {
      g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_TYPE,
                           "\"append\" target is not a string");
      return NULL;
    }
  if (suffix == NULL || !JSON_NODE_HOLDS_VALUE (suffix) ||
      json_node_get_value_type (suffix) != G_TYPE_STRING)
    {
      g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_TYPE,
                           "\"append\" value is not a string");
      return NULL;
    }

  a = json_node_get_string (target);
  b = json_node_get_string (suffix);
  la = strlen (a);
  lb = strlen (b);

  joined = g_malloc (la + lb + 1);
  memcpy (joined, a, la);
  memcpy (joined + la, b, lb + 1);
  result = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (result, joined);
  g_free (joined);

  return result;
}

static gboolean
is_fresh (ApplyState *state,
          JsonNode   *node)
{
  return state->fresh != NULL && g_hash_table_contains (state->fresh, node);
}

static JsonNode *
mark_fresh (ApplyState *state,
            JsonNode   *node)
{
  if (state->fresh == NULL)
    state->fresh = g_hash_table_new (NULL, NULL);
  g_hash_table_add (state->fresh, node);
  return node;
}

typedef enum
{
  CHANGE_SET,      /* list: replace element; dict: set member */
  CHANGE_INSERT,   /* list: insert before index; dict: set member */
  CHANGE_REMOVE,   /* list: remove element; dict: remove member */
} ChangeKind;

/* Returns a container equal to container with one change; takes child. When
 * container is fresh it is changed in place where json-glib can (and the same
 * node is returned), otherwise a new fresh node is built that shares every
 * other child with container. */
static JsonNode *
change_container (ApplyState *state,
                  JsonNode   *container,
                  JsonNode   *key,
                  ChangeKind  change,
                  JsonNode   *child)
{
  JsonNode *result;

  if (JSON_NODE_HOLDS_OBJECT (container))
    {
      JsonObject *object = json_node_get_object (container);
      const char *name = path_key (key);
      JsonObject *new_object;
      JsonObjectIter iter;
      const char *member_name;
      JsonNode *member;
      gboolean seen = FALSE;

      if (is_fresh (state, container))
        {
          if (change == CHANGE_REMOVE)
            json_object_remove_member (object, name);
          else
            json_object_set_member (object, name, child);
          return container;
        }

      new_object = json_object_new ();
      json_object_iter_init_ordered (&iter, object);
      while (json_object_iter_next_ordered (&iter, &member_name, &member))
        {
          if (strcmp (member_name, name) == 0)
            {
              seen = TRUE;
              if (change != CHANGE_REMOVE)
                json_object_set_member (new_object, member_name, child);
            }
          else
            json_object_set_member (new_object, member_name, json_node_ref (member));
        }
      if (!seen && change != CHANGE_REMOVE)
        json_object_set_member (new_object, name, child);

      result = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (result, new_object);
      return mark_fresh (state, result);
    }
  else
    {
      JsonArray *array = json_node_get_array (container);
      guint n = json_array_get_length (array);
      gint64 index = 0;
      JsonArray *new_array;

      path_index (key, &index);

      if (is_fresh (state, container))
        {
          if (change == CHANGE_REMOVE)
            {
              json_array_remove_element (array, index);
              return container;
            }
          if (change == CHANGE_INSERT && index == n)
            {
              json_array_add_element (array, child);
              return container;
            }
        }

      new_array = json_array_sized_new (n + 1);
      for (guint i = 0; i < n; i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (i == index)
            {
              if (change == CHANGE_REMOVE)
                continue;
              json_array_add_element (new_array, child);
              if (change == CHANGE_SET)
                continue;
            }
          json_array_add_element (new_array, json_node_ref (element));
        }
      if (change == CHANGE_INSERT && index == n)
        json_array_add_element (new_array, child);

      if (is_fresh (state, container))
        {
          /* Keep the node identity: ancestors already point at it. */
          json_node_take_array (container, new_array);
          return container;
        }

      result = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (result, new_array);
      return mark_fresh (state, result);
    }
}

/* An edit with an empty path: the whole value replaced or appended to. */
static JsonNode *
apply_at_root (JsonNode   *root,
               DiffOp      op,
               JsonNode   *value,
               JsonNode   *owned,
               GError    **error)
{
  switch (op)
    {
    case OP_REPLACE:
      return owned != NULL ? owned : import_value (value, error);
    case OP_APPEND:
      g_clear_pointer (&owned, json_node_unref);
      return concat_strings (root, value, error);
    case OP_ADD:
    case OP_DELETE:
    default:
      g_clear_pointer (&owned, json_node_unref);
      g_set_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_BAD_PATH,
                   "\"%s\" needs a non-empty path", op == OP_ADD ? "add" : "delete");
      return NULL;
    }
}

/* The member or element of container that key names, for op (NULL in
 * *target where op adds a new one). FALSE with error when key cannot name one
 * there. */
static gboolean
find_target (JsonNode   *container,
             JsonNode   *key,
             guint       position,
             DiffOp      op,
             JsonNode  **target,
             GError    **error)
{
  *target = NULL;
  if (container != NULL && JSON_NODE_HOLDS_ARRAY (container))
    {
      guint n = json_array_get_length (json_node_get_array (container));
      gint64 index;

      if (!path_index (key, &index))
        return (bad_path (error, position, "a list needs a non-negative integer index"), FALSE);
      if (op == OP_ADD ? index > n : index >= n)
        return (bad_path (error, position, "list index out of range"), FALSE);
      if (op != OP_ADD)
        *target = json_array_get_element (json_node_get_array (container), index);
      return TRUE;
    }
  if (container != NULL && JSON_NODE_HOLDS_OBJECT (container))
    {
      const char *name = path_key (key);

      if (name == NULL)
        return (bad_path (error, position, "a dict needs a string key"), FALSE);
      *target = json_object_get_member (json_node_get_object (container), name);
      if (*target == NULL && (op == OP_APPEND || op == OP_DELETE))
        return (bad_path (error, position, "no such key"), FALSE);
      return TRUE;
    }
  return (bad_path (error, position, "not a list or a dict"), FALSE);
}

/* What op puts where target is (NULL for a removal, and on error), and how. */
static JsonNode *
new_child_for (DiffOp       op,
               JsonNode    *target,
               JsonNode    *value,
               JsonNode    *owned,
               ChangeKind  *change,
               GError     **error)
{
  switch (op)
    {
    case OP_REPLACE:
      *change = CHANGE_SET;
      return owned != NULL ? owned : import_value (value, error);
    case OP_APPEND:
      *change = CHANGE_SET;
      g_clear_pointer (&owned, json_node_unref);
      return concat_strings (target, value, error);
    case OP_ADD:
      *change = CHANGE_INSERT;
      g_clear_pointer (&owned, json_node_unref);
      return import_value (value, error);
    case OP_DELETE:
    default:
      *change = CHANGE_REMOVE;
      g_clear_pointer (&owned, json_node_unref);
      return NULL;
    }
}

/* Applies one edit to root (borrowed, NULL = JSON null). Returns the new root
 * (owned), or NULL with error; root itself is never modified unless fresh.
 * owned_value, when not NULL, is a replace value the caller hands over (value
 * is then ignored); it is consumed in every case. */
static JsonNode *
apply_edit (ApplyState  *state,
            JsonNode    *root,
            DiffOp       op,
            JsonArray   *path,
            JsonNode    *value,
            JsonNode    *owned_value,
            GError     **error)
{
  g_autoptr(JsonNode) owned = owned_value;
  guint depth = json_array_get_length (path);
  JsonNode *stack_chain[16];
  g_autofree JsonNode **heap_chain = NULL;
  JsonNode **chain;
  JsonNode *target;
  JsonNode *new_child;
  ChangeKind change;

  if (depth == 0)
    return apply_at_root (root, op, value, g_steal_pointer (&owned), error);

  /* No value can be deeper than what the parser (or a copy) accepts. */
  if (depth > MAX_COPY_DEPTH)
    {
      g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_BAD_PATH, "Diff path is too long");
      return NULL;
    }

  /* Walk down, validating everything before building anything. */
  if (depth <= G_N_ELEMENTS (stack_chain))
    chain = stack_chain;
  else
    chain = heap_chain = g_new (JsonNode *, depth);
  chain[0] = root;
  for (guint i = 1; i < depth; i++)
    {
      chain[i] = get_child (chain[i - 1], json_array_get_element (path, i - 1), i - 1, error);
      if (chain[i] == NULL)
        return NULL;
    }
  if (!find_target (chain[depth - 1], json_array_get_element (path, depth - 1), depth - 1, op,
                    &target, error))
    return NULL;
  new_child = new_child_for (op, target, value, g_steal_pointer (&owned), &change, error);
  if (change != CHANGE_REMOVE && new_child == NULL)
    return NULL;

  /* Build upwards. Stop as soon as a level was changed in place: its parent
   * already points at it (fresh nodes only hang off fresh parents). */
  for (guint i = depth; i > 0; i--)
    {
      JsonNode *node = chain[i - 1];
      JsonNode *changed;

      changed = change_container (state, node, json_array_get_element (path, i - 1),
                                  change, new_child);
      if (changed == node)
        return json_node_ref (root);

      new_child = changed;
      change = CHANGE_SET;
    }

  return new_child;
}

gboolean
riv_diff_apply (JsonNode **value,
                JsonNode  *edits,
                GError   **error)
{
  ApplyState state = { NULL };
  JsonNode *current = NULL;
  JsonArray *list;
  guint n;
  gboolean ok = TRUE;

  g_return_val_if_fail (value != NULL, FALSE);

  if (edits == NULL || !JSON_NODE_HOLDS_ARRAY (edits))
    {
      g_set_error_literal (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID,
                           "Diff is not a list of edits");
      return FALSE;
    }

  list = json_node_get_array (edits);
  n = json_array_get_length (list);
  if (n == 0)
    return TRUE;

  current = *value != NULL ? json_node_ref (*value) : NULL;

  for (guint i = 0; i < n && ok; i++)
    {
      JsonNode *edit = json_array_get_element (list, i);
      JsonArray *parts;
      JsonNode *path;
      JsonNode *next;
      DiffOp op;
      guint n_parts;

      parts = JSON_NODE_HOLDS_ARRAY (edit) ? json_node_get_array (edit) : NULL;
      n_parts = parts != NULL ? json_array_get_length (parts) : 0;
      if (n_parts < 2 || n_parts > 3)
        {
          g_set_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID,
                       "Edit %u is not [op, path, value]", i);
          ok = FALSE;
          break;
        }

      if (!parse_op (json_array_get_element (parts, 0), &op, error))
        {
          ok = FALSE;
          break;
        }

      path = json_array_get_element (parts, 1);
      if (!JSON_NODE_HOLDS_ARRAY (path))
        {
          g_set_error (error, RIV_DIFF_ERROR, RIV_DIFF_ERROR_INVALID,
                       "Edit %u: path is not a list", i);
          ok = FALSE;
          break;
        }

      next = apply_edit (&state, current, op, json_node_get_array (path),
                         n_parts == 3 ? json_array_get_element (parts, 2) : NULL, NULL, error);
      if (next == NULL)
        {
          ok = FALSE;
          break;
        }

      g_clear_pointer (&current, json_node_unref);
      current = next;
    }

  g_clear_pointer (&state.fresh, g_hash_table_unref);

  if (!ok)
    {
      g_clear_pointer (&current, json_node_unref);
      return FALSE;
    }

  g_clear_pointer (value, json_node_unref);
  *value = current;
  return TRUE;
}

static JsonNode *
new_edit_list (const char *op,
               JsonNode   *value)
{
  JsonArray *edit = json_array_sized_new (3);
  JsonArray *list = json_array_sized_new (1);
  JsonNode *node;

  json_array_add_string_element (edit, op);
  json_array_add_array_element (edit, json_array_new ());
  json_array_add_element (edit, value);
  json_array_add_array_element (list, edit);

  node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, list);
  return node;
}

JsonNode *
riv_diff_new_append (const char *suffix)
{
  JsonNode *value = json_node_new (JSON_NODE_VALUE);

  json_node_set_string (value, suffix != NULL ? suffix : "");
  return new_edit_list ("append", value);
}

JsonNode *
riv_diff_new_replace (JsonNode *value)
{
  JsonNode *copy = value != NULL ? deep_copy (value, 0) : NULL;

  if (copy == NULL)
    copy = json_node_new (JSON_NODE_NULL);
  return new_edit_list ("replace", copy);
}

/* RivDiffValue: the value of one output slot across many edit lists. */

struct _RivDiffValue
{
  JsonNode *tree;        /* owned, nullable (JSON null); stale at hot_path while tree_stale */
  char     *hot;         /* owned, nullable: the string at hot_path, kept growable */
  gsize     hot_len;
  gsize     hot_alloc;   /* bytes allocated for hot, its NUL included */
  JsonNode *hot_path;    /* owned, nullable: the path of hot (a JSON list) */
  guint     hot_depth;   /* length of hot_path: most paths are [], and comparing
                            lengths first saves reaching into a cold hot_path */
  gboolean  tree_stale;  /* hot has grown since tree was last rebuilt */
};

RivDiffValue *
riv_diff_value_new (JsonNode *initial)
{
  RivDiffValue *self = g_new0 (RivDiffValue, 1);

  riv_diff_value_set (self, initial);
  return self;
}

static void
drop_hot (RivDiffValue *self)
{
  g_clear_pointer (&self->hot, g_free);
  self->hot_len = 0;
  self->hot_alloc = 0;
  g_clear_pointer (&self->hot_path, json_node_unref);
  self->hot_depth = 0;
  self->tree_stale = FALSE;
}

void
riv_diff_value_free (RivDiffValue *self)
{
  if (self == NULL)
    return;

  drop_hot (self);
  g_clear_pointer (&self->tree, json_node_unref);
  g_free (self);
}

void
riv_diff_value_set (RivDiffValue *self,
                    JsonNode     *value)
{
  JsonNode *imported = NULL;

  g_return_if_fail (self != NULL);

  if (value != NULL && !JSON_NODE_HOLDS_NULL (value))
    imported = import_value (value, NULL);

  drop_hot (self);
  g_clear_pointer (&self->tree, json_node_unref);
  self->tree = imported;
}

/* The streamed string is kept in the value itself, not in a GString of its
 * own: one block fewer to reach for every append. */
static void
hot_set (RivDiffValue *self,
         const char   *text)
{
  gsize len = strlen (text);

  self->hot_alloc = MAX (len + 1, 64);
  self->hot = g_malloc (self->hot_alloc);
  memcpy (self->hot, text, len + 1);
  self->hot_len = len;
}

static void
hot_append (RivDiffValue *self,
            const char   *suffix)
{
  gsize len = strlen (suffix);

  if (self->hot_len + len + 1 > self->hot_alloc)
    {
      self->hot_alloc = MAX (self->hot_alloc * 2, self->hot_len + len + 1);
      self->hot = g_realloc (self->hot, self->hot_alloc);
    }
  memcpy (self->hot + self->hot_len, suffix, len + 1);
  self->hot_len += len;
}

/* Brings tree up to date with hot. Cannot fail: hot_path was resolved when hot
 * was created, and the tree only changes here or after drop_hot(). */
static void
flush_hot (RivDiffValue *self)
{
  ApplyState state = { NULL };
  JsonNode *text;
  JsonNode *next;

  if (self->hot == NULL || !self->tree_stale)
    return;

  text = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (text, self->hot);
  next = apply_edit (&state, self->tree, OP_REPLACE, json_node_get_array (self->hot_path),
                     NULL, text, NULL);
  g_clear_pointer (&state.fresh, g_hash_table_unref);
  g_assert (next != NULL);

  g_clear_pointer (&self->tree, json_node_unref);
  self->tree = next;
  self->tree_stale = FALSE;
}

static gboolean
path_equal (JsonNode *a,
            JsonNode *b)
{
  JsonArray *pa = json_node_get_array (a);
  JsonArray *pb = json_node_get_array (b);
  guint n = json_array_get_length (pa);

  if (n != json_array_get_length (pb))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *x = json_array_get_element (pa, i);
      JsonNode *y = json_array_get_element (pb, i);
      gint64 ix, iy;
      const char *sx, *sy;

      if (path_index (x, &ix) && path_index (y, &iy))
        {
          if (ix != iy)
            return FALSE;
        }
      else if ((sx = path_key (x)) != NULL && (sy = path_key (y)) != NULL)
        {
          if (strcmp (sx, sy) != 0)
            return FALSE;
        }
      else
        return FALSE;
    }
  return TRUE;
}

/* TRUE when every edit is ["append", P, "text"] with one and the same P,
 * which is returned in *path (borrowed). */
static gboolean
all_same_appends (JsonArray  *list,
                  JsonNode  **path)
{
  guint n = json_array_get_length (list);

  *path = NULL;
  for (guint i = 0; i < n; i++)
    {
      JsonNode *edit = json_array_get_element (list, i);
      JsonArray *parts;
      JsonNode *op, *p, *value;

      if (!JSON_NODE_HOLDS_ARRAY (edit))
        return FALSE;
      parts = json_node_get_array (edit);
      if (json_array_get_length (parts) != 3)
        return FALSE;

      op = json_array_get_element (parts, 0);
      p = json_array_get_element (parts, 1);
      value = json_array_get_element (parts, 2);
      if (!JSON_NODE_HOLDS_VALUE (op) || json_node_get_value_type (op) != G_TYPE_STRING ||
          g_strcmp0 (json_node_get_string (op), "append") != 0 ||
          !JSON_NODE_HOLDS_ARRAY (p) ||
          !JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        return FALSE;

      if (*path == NULL)
        *path = p;
      else if (!path_equal (*path, p))
        return FALSE;
    }
  return *path != NULL;
}

/* The node at path in root (borrowed), or NULL. */
static JsonNode *
resolve_path (JsonNode *root,
              JsonNode *path)
{
  JsonArray *elements = json_node_get_array (path);
  guint n = json_array_get_length (elements);
  JsonNode *node = root;

  for (guint i = 0; i < n && node != NULL; i++)
    node = get_child (node, json_array_get_element (elements, i), i, NULL);
  return node;
}

/* Makes hot the string at path (depth elements long), flushing the one it
 * was before; FALSE when there is no string there. */
static gboolean
hot_ensure (RivDiffValue *self,
            JsonNode     *path,
            guint         depth)
{
  JsonNode *target;

  if (self->hot != NULL && depth == self->hot_depth &&
      (depth == 0 || path_equal (self->hot_path, path)))
    return TRUE;

  flush_hot (self);
  target = resolve_path (self->tree, path);
  if (target == NULL || !JSON_NODE_HOLDS_VALUE (target) ||
      json_node_get_value_type (target) != G_TYPE_STRING)
    return FALSE;

  drop_hot (self);
  self->hot_path = json_node_is_immutable (path) ? json_node_ref (path) : deep_copy (path, 0);
  self->hot_depth = depth;
  hot_set (self, json_node_get_string (target));
  return TRUE;
}

gboolean
riv_diff_value_apply (RivDiffValue  *self,
                      JsonNode      *edits,
                      GError       **error)
{
  JsonNode *path;

  g_return_val_if_fail (self != NULL, FALSE);

  if (edits != NULL && JSON_NODE_HOLDS_ARRAY (edits) &&
      all_same_appends (json_node_get_array (edits), &path) &&
      hot_ensure (self, path, json_array_get_length (json_node_get_array (path))))
    {
      JsonArray *list = json_node_get_array (edits);
      guint n = json_array_get_length (list);

      for (guint i = 0; i < n; i++)
        {
          JsonArray *parts = json_node_get_array (json_array_get_element (list, i));

          hot_append (self, json_array_get_string_element (parts, 2));
        }
      self->tree_stale = TRUE;
      return TRUE;
    }

  flush_hot (self);
  drop_hot (self);
  return riv_diff_apply (&self->tree, edits, error);
}

/* The path [], sealed and shared. */
static JsonNode *
root_path (void)
{
  static gsize path;

  if (g_once_init_enter (&path))
    {
      JsonArray *empty = json_array_new ();
      JsonNode *node = json_node_init_array (json_node_alloc (), empty);

      json_array_unref (empty);
      json_node_seal (node);
      g_once_init_leave (&path, (gsize) node);
    }
  return (JsonNode *) path;
}

gboolean
riv_diff_value_append_root (RivDiffValue *self,
                            const char   *suffix)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (!hot_ensure (self, root_path (), 0))
    return FALSE;
  hot_append (self, suffix);
  self->tree_stale = TRUE;
  return TRUE;
}

JsonNode *
riv_diff_value_dup_node (RivDiffValue *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  flush_hot (self);
  if (self->tree == NULL)
    return json_node_new (JSON_NODE_NULL);
  return json_node_ref (self->tree);
}

const char *
riv_diff_value_peek_string (RivDiffValue *self,
                            gsize        *length)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->hot != NULL && self->hot_depth == 0)
    {
      if (length != NULL)
        *length = self->hot_len;
      return self->hot;
    }

  if (self->tree != NULL && !self->tree_stale && JSON_NODE_HOLDS_VALUE (self->tree) &&
      json_node_get_value_type (self->tree) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (self->tree);

      if (length != NULL)
        *length = strlen (text);
      return text;
    }

  return NULL;
}
