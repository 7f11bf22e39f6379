/* model-hf.c — a Hugging Face config.json as the model its modeling file
 * builds, through the zoo's transformer generator (model-gen.c).
 *
 * model_type picks the architecture and the names of its keys:
 *   gpt2    n_layer, n_embd, n_head, n_inner (null: 4 x n_embd), vocab_size,
 *           n_positions; GPT2LMHeadModel, head tied unless
 *           tie_word_embeddings is false
 *   bert    num_hidden_layers, hidden_size, num_attention_heads,
 *           intermediate_size, vocab_size, max_position_embeddings,
 *           type_vocab_size; BertModel with its pooler (what the published
 *           totals count; a pretraining head is not included)
 *   llama, mistral, qwen2
 *           as bert, plus num_key_value_heads (grouped-query attention,
 *           default num_attention_heads), head_dim (default hidden_size /
 *           num_attention_heads), tie_word_embeddings (default false);
 *           llama's attention_bias and mlp_bias; qwen2's q, k and v
 *           projections always have biases
 * Tensors are named as the zoo names them: Llama-style models exactly as
 * their *ForCausalLM does; GPT-2 and BERT as GPT2Model and BertModel do
 * (without GPT2LMHeadModel's "transformer." or BertFor*'s "bert." prefix),
 * in the same order and shapes.  Other keys (dropout, rope, token ids,
 * dtype) do not change the parameter list and are ignored.  A sample is a sequence of max_position_embeddings
 * tokens (n_positions for gpt2), at most 8192: the context these models
 * are trained at, not the longest they extrapolate to; a .model file sets
 * any other.  Each key's value must be a JSON whole number or boolean. */
#include "sim/model.h"
#include "sim/model-gen.h"
#include "sim/base/error.h"
#include "sim/base/json-load.h"

#include <json-glib/json-glib.h>
#include <string.h>

#define HF_SEQ_MAX 8192

typedef struct {
  const char *type;
  DpsTransformerKind kind;
  const char *layers, *hidden, *heads, *ffn, *vocab, *positions;
} DpsHfKeys;

static const DpsHfKeys hf_types[] = {
  { "gpt2", DPS_TF_GPT2, "n_layer", "n_embd", "n_head", "n_inner", "vocab_size", "n_positions" },
  { "bert", DPS_TF_BERT, "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
    "vocab_size", "max_position_embeddings" },
  { "llama", DPS_TF_LLAMA, "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
    "vocab_size", "max_position_embeddings" },
  { "mistral", DPS_TF_LLAMA, "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
    "vocab_size", "max_position_embeddings" },
  { "qwen2", DPS_TF_LLAMA, "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
    "vocab_size", "max_position_embeddings" },
};

typedef struct {
  const char *file;
  const char *type;
  JsonObject *o;
} DpsHfConfig;

/* The member KEY, or NULL where it is absent or null (HF writes null for
 * "the default"). */
static JsonNode *
member (const DpsHfConfig *c, const char *key)
{
  JsonNode *n = json_object_get_member (c->o, key);
  return n && !JSON_NODE_HOLDS_NULL (n) ? n : NULL;
}

/* A whole number from 1 to max; absent: def, or an error where required. */
static gboolean
get_int (const DpsHfConfig *c, const char *key, gboolean required, gint64 def, gint64 max, int *out,
         GError **error)
{
  JsonNode *n = member (c, key);
  if (!n) {
    if (required)
      return dps_set_error_at (error, c->file, 0, "no key '%s' (a %s config needs it)", key, c->type);
    *out = (int) def;
    return TRUE;
  }
  gint64 v = 0;
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64
      || (v = json_node_get_int (n)) < 1 || v > max)
    return dps_set_error_at (error, c->file, 0, "%s: expected a whole number from 1 to %" G_GINT64_FORMAT, key, max);
  *out = (int) v;
  return TRUE;
}

static gboolean
get_bool (const DpsHfConfig *c, const char *key, gboolean def, gboolean *out, GError **error)
{
  JsonNode *n = member (c, key);
  if (!n) {
    *out = def;
    return TRUE;
  }
  if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return dps_set_error_at (error, c->file, 0, "%s: expected true or false", key);
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* The shape a config describes, its numbers checked as the zoo's are. */
static gboolean
shape_from_config (const DpsHfConfig *c, const DpsHfKeys *k, DpsTransformerShape *s, GError **error)
{
  gboolean llama = k->kind == DPS_TF_LLAMA, tie = FALSE;
  int positions = 0;
  *s = (DpsTransformerShape) { .kind = k->kind, .qkv_bias = g_str_equal (k->type, "qwen2") };
  if (!get_int (c, k->layers, TRUE, 0, 4096, &s->layers, error)
      || !get_int (c, k->hidden, TRUE, 0, 1 << 17, &s->hidden, error)
      || !get_int (c, k->heads, TRUE, 0, 4096, &s->heads, error)
      || !get_int (c, k->ffn, k->kind != DPS_TF_GPT2, 4 * (gint64) s->hidden, 1 << 20, &s->ffn, error)
      || !get_int (c, k->vocab, TRUE, 0, 1 << 24, &s->vocab, error)
      || !get_int (c, k->positions, TRUE, 0, 1 << 21, &positions, error))
    return FALSE;
  if (k->kind == DPS_TF_BERT && !get_int (c, "type_vocab_size", FALSE, 2, 1 << 20, &s->type_vocab, error))
    return FALSE;
  if (llama
      && (!get_int (c, "num_key_value_heads", FALSE, s->heads, 4096, &s->kv_heads, error)
          || !get_int (c, "head_dim", FALSE, s->hidden / s->heads, 1 << 14, &s->head_dim, error)))
    return FALSE;
  if (g_str_equal (k->type, "llama")
      && (!get_bool (c, "attention_bias", FALSE, &s->attn_bias, error)
          || !get_bool (c, "mlp_bias", FALSE, &s->mlp_bias, error)))
    return FALSE;
  if (k->kind != DPS_TF_BERT) {
    if (!get_bool (c, "tie_word_embeddings", k->kind == DPS_TF_GPT2, &tie, error))
      return FALSE;
    s->tie = tie ? DPS_TIE_YES : DPS_TIE_NO;
  }
  if ((!llama || !member (c, "head_dim")) && s->hidden % s->heads)
    return dps_set_error_at (error, c->file, 0, "%s (%d) is not a multiple of %s (%d)", k->hidden, s->hidden,
                             k->heads, s->heads);
  if (llama && s->heads % s->kv_heads)
    return dps_set_error_at (error, c->file, 0, "%s (%d) is not a multiple of num_key_value_heads (%d)", k->heads,
                             s->heads, s->kv_heads);
  s->max_positions = positions;
  s->seq = MIN (positions, HF_SEQ_MAX);
  return TRUE;
}

/* The model's name: _name_or_path where the file has one, else the file's
 * name without .json (its folder's for a config.json, as the Hub's
 * snapshots are laid out), with the first architecture after it:
 * "Meta-Llama-3-8B (LlamaForCausalLM)".  A new string. */
static char *
config_name (const DpsHfConfig *c)
{
  JsonNode *n = member (c, "_name_or_path");
  if (n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING && *json_node_get_string (n))
    return g_strdup (json_node_get_string (n));
  g_autofree char *base = g_path_get_basename (c->file);
  if (g_str_equal (base, "config.json")) {
    g_autofree char *dir = g_path_get_dirname (c->file);
    g_free (base);
    base = g_path_get_basename (dir);
  } else if (g_str_has_suffix (base, ".json"))
    base[strlen (base) - 5] = 0;
  const char *arch = NULL;
  n = member (c, "architectures");
  if (n && JSON_NODE_HOLDS_ARRAY (n) && json_array_get_length (json_node_get_array (n)) > 0) {
    JsonNode *first = json_array_get_element (json_node_get_array (n), 0);
    if (JSON_NODE_HOLDS_VALUE (first) && json_node_get_value_type (first) == G_TYPE_STRING)
      arch = json_node_get_string (first);
  }
  return arch ? g_strdup_printf ("%s (%s)", base, arch) : g_steal_pointer (&base);
}

/* Parses a Hugging Face config.json from memory (name: the file, for
 * messages) through dps_json_load, which bounds its depth and size.
 * Malformed JSON is refused with the file, line and column; an
 * unknown or missing model_type with the file and the key.  Returns a new
 * model (dps_model_free) or NULL with error set. */
DpsModel *
dps_model_load_hf_config_data (const char *name, const char *data, gssize len, GError **error)
{
  return dps_model_load_hf_config_data_seq (name, data, len, 0, error);
}

DpsModel *
dps_model_load_hf_config_data_seq (const char *name, const char *data, gssize len, int seq, GError **error)
{
  g_autoptr (JsonParser) parser = dps_json_load (name, data, len, "JSON file", error);
  if (!parser)
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (!root || !JSON_NODE_HOLDS_OBJECT (root))
    return dps_set_error_at (error, name, 0, "expected a JSON object (a Hugging Face config.json)"), NULL;
  DpsHfConfig c = { name, NULL, json_node_get_object (root) };
  JsonNode *t = member (&c, "model_type");
  if (!t || !JSON_NODE_HOLDS_VALUE (t) || json_node_get_value_type (t) != G_TYPE_STRING)
    return dps_set_error_at (error, name, 0, "no string key 'model_type' (a Hugging Face config.json names its "
                             "architecture there)"), NULL;
  c.type = json_node_get_string (t);
  const DpsHfKeys *k = NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (hf_types); i++)
    if (g_str_equal (c.type, hf_types[i].type))
      k = &hf_types[i];
  if (!k) {
    g_autofree char *q = dps_quote (c.type);
    return dps_set_error_at (error, name, 0, "model_type: '%s' is not one dpscale builds (gpt2, bert, llama, "
                             "mistral, qwen2)", q), NULL;
  }
  DpsTransformerShape s;
  if (!shape_from_config (&c, k, &s, error))
    return NULL;
  g_autofree char *model_name = config_name (&c);
  if (seq > 0 && seq > s.max_positions && s.kind != DPS_TF_LLAMA) {
    g_set_error (error, DPS_ERROR, DPS_ERROR_INPUT, "sequence length: %d is longer than %s's %d learned positions",
                 seq, model_name, s.max_positions);
    return NULL;
  }
  if (seq > 0)
    s.seq = seq;
  DpsModel *m = dps_model_gen_transformer (model_name, &s);
  m->source = g_strdup (name);
  return m;
}
