/* engine.c — see engine.h for the model. */
#include "sim/engine.h"

#include <math.h>
#include <string.h>

/* A slot holds a scheduled event's callback; its generation names the
 * event, so an id outlives it safely. */
typedef struct {
  DpsEventFn fn;
  void      *data;
  guint64    key;      /* the queue key of its event while live */
  guint32    gen;      /* bumped each time the slot is freed (fired or cancelled) */
  gboolean   live;     /* scheduled, neither fired nor cancelled */
} Slot;

/* Queue entries carry their keys: the time, and the scheduling sequence
 * number (high SEQ_BITS bits: ties fire first come, first served) with the
 * slot (low SLOT_BITS).  Moving an entry touches no slot; an entry whose
 * key is no longer its slot's is a cancelled event, dropped where it is
 * next looked at (lazy cancellation). */
typedef struct {
  double  time_s;
  guint64 key;
} Entry;

#define SLOT_BITS 28      /* 268 million events pending at most */
#define SEQ_BITS  36      /* 68 billion scheduled per engine: hours of events at any rate reached */
#define KEY_SLOT(k) ((guint32) ((k) & ((1u << SLOT_BITS) - 1)))

/* A growable array of entries. */
typedef struct { Entry *v; guint32 len, cap; } Vec;

static inline void
vec_push (Vec *a, Entry x)
{
  if (a->len == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 16;
    a->v = g_renew (Entry, a->v, a->cap);
  }
  a->v[a->len++] = x;
}

/* The queue is a two-tier ladder (Tang, Goh and Thng, "Ladder queue",
 * ACM TOMACS 2005, reduced to one rung): a heap holds the events due
 * first; the rung holds the next ones in buckets of equal width of time;
 * the events beyond the rung wait unsorted.  Scheduling is O(1) but for
 * the heap's share; when the heap runs dry it takes the next bucket, and
 * when the rung runs dry the unsorted events are spread over a new one,
 * about BUCKET_LOAD a bucket.  The heap thus stays small and in cache:
 * a binary heap of a million events pays a cache miss at each of its
 * levels.  Every event in the heap is due no later than any in the rung,
 * and every event in the rung no later than any beyond it, because one
 * monotone function of the time (bucket_of) places each. */
#define BUCKET_LOAD 8

struct DpsEngine {
  double     now_s;
  guint64    next_seq;
  guint64    fired;
  Slot      *slots;
  guint32    n_slots;
  guint32   *free_list;
  guint32    n_free;
  Vec        heap;      /* binary min-heap on (time, key) */
  Vec       *buckets;   /* the rung: n_buckets of them, the first `cursor` emptied into the heap */
  guint32    n_buckets, buckets_cap, cursor;
  double     rung_start_s, width_s;
  Vec        far;       /* beyond the rung, unsorted */
  guint64    stale;     /* cancelled entries still queued */
};

static inline gboolean
entry_less (const Entry *a, const Entry *b)
{
  if (a->time_s != b->time_s)
    return a->time_s < b->time_s;
  return a->key < b->key;
}

static void
sift_up (Entry *heap, guint32 pos)
{
  Entry x = heap[pos];
  while (pos > 0) {
    guint32 parent = (pos - 1) / 2;
    if (!entry_less (&x, &heap[parent]))
      break;
    heap[pos] = heap[parent];
    pos = parent;
  }
  heap[pos] = x;
}

static void
sift_down (Entry *heap, guint32 n, guint32 pos)
{
  Entry x = heap[pos];
  for (;;) {
    guint32 c = 2 * pos + 1;
    if (c >= n)
      break;
    if (c + 1 < n && entry_less (&heap[c + 1], &heap[c]))
      c++;
    if (!entry_less (&heap[c], &x))
      break;
    heap[pos] = heap[c];
    pos = c;
  }
  heap[pos] = x;
}

static inline gboolean
live_entry (const DpsEngine *e, const Entry *h)
{
  const Slot *s = &e->slots[KEY_SLOT (h->key)];
  return s->live && s->key == h->key;
}

/* Where an event at time_s goes: < cursor the heap, < n_buckets that
 * bucket, n_buckets beyond the rung.  Monotone in time_s. */
static inline guint32
bucket_of (const DpsEngine *e, double time_s)
{
  double q = (time_s - e->rung_start_s) / e->width_s;
  if (!(q >= 0))
    return 0;
  if (q >= e->n_buckets)
    return e->n_buckets;
  return (guint32) q;
}

static void
enqueue (DpsEngine *e, Entry x)
{
  guint32 b = bucket_of (e, x.time_s);
  if (b < e->cursor) {
    vec_push (&e->heap, x);
    sift_up (e->heap.v, e->heap.len - 1);
  } else if (b < e->n_buckets)
    vec_push (&e->buckets[b], x);
  else
    vec_push (&e->far, x);
}

/* Moves src's live entries to the heap (empty before) and heapifies. */
static void
fill_heap (DpsEngine *e, Vec *src)
{
  for (guint32 i = 0; i < src->len; i++)
    if (live_entry (e, &src->v[i]))
      vec_push (&e->heap, src->v[i]);
    else
      e->stale--;
  src->len = 0;
  for (guint32 i = e->heap.len / 2 + 1; i-- > 0;)
    if (i < e->heap.len)
      sift_down (e->heap.v, e->heap.len, i);
}

/* Spreads the events beyond the rung over a new rung (the old one is
 * spent: cursor == n_buckets). */
static void
new_rung (DpsEngine *e)
{
  double lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE;
  guint32 n = 0;
  for (guint32 i = 0; i < e->far.len; i++)
    if (live_entry (e, &e->far.v[i])) {
      e->far.v[n++] = e->far.v[i];
      lo = MIN (lo, e->far.v[i].time_s);
      hi = MAX (hi, e->far.v[i].time_s);
    } else
      e->stale--;
  e->far.len = n;
  guint32 nb = MAX (1, MIN (n / BUCKET_LOAD, 1u << 20));
  double width = (hi - lo) / nb;
  if (!(width > 0) || !isfinite (width) || lo + width * nb <= hi)
    width = hi > lo && isfinite (hi - lo) ? nextafter (hi - lo, G_MAXDOUBLE) / nb : 1;
  if (nb > e->buckets_cap) {
    e->buckets = g_renew (Vec, e->buckets, nb);
    memset (e->buckets + e->buckets_cap, 0, sizeof (Vec) * (nb - e->buckets_cap));
    e->buckets_cap = nb;
  }
  for (guint32 b = 0; b < nb; b++)
    e->buckets[b].len = 0;
  e->n_buckets = nb;
  e->cursor = 0;
  e->rung_start_s = lo;
  e->width_s = width;
  Vec far = e->far;
  e->far = (Vec) { 0 };
  for (guint32 i = 0; i < far.len; i++)
    enqueue (e, far.v[i]);
  far.len = 0;
  if (e->far.v == NULL)
    e->far = far;   /* keep the storage */
  else
    g_free (far.v);
}

/* Makes the heap's top the earliest pending event; FALSE when none is. */
static gboolean
refill (DpsEngine *e)
{
  for (;;) {
    while (e->heap.len > 0 && !live_entry (e, &e->heap.v[0])) {
      e->heap.v[0] = e->heap.v[--e->heap.len];
      if (e->heap.len > 0)
        sift_down (e->heap.v, e->heap.len, 0);
      e->stale--;
    }
    if (e->heap.len > 0)
      return TRUE;
    if (e->cursor < e->n_buckets) {
      fill_heap (e, &e->buckets[e->cursor++]);
      continue;
    }
    if (e->far.len == 0)
      return FALSE;
    new_rung (e);
  }
}

static void
grow_slots (DpsEngine *e)
{
  guint32 old = e->n_slots;
  guint32 n = old ? old * 2 : 256;
  g_return_if_fail (n <= (1u << SLOT_BITS));
  e->slots = g_renew (Slot, e->slots, n);
  e->free_list = g_renew (guint32, e->free_list, n);
  for (guint32 i = n; i > old; i--) {
    e->slots[i - 1] = (Slot) { .gen = 1 };
    e->free_list[e->n_free++] = i - 1;
  }
  e->n_slots = n;
}

/* Returns a new engine at time 0 with no events; free with dps_engine_free. */
DpsEngine *
dps_engine_new (void)
{
  DpsEngine *e = g_new0 (DpsEngine, 1);
  e->width_s = 1;
  grow_slots (e);
  return e;
}

void
dps_engine_free (DpsEngine *engine)
{
  if (!engine)
    return;
  g_free (engine->slots);
  g_free (engine->free_list);
  g_free (engine->heap.v);
  for (guint32 b = 0; b < engine->buckets_cap; b++)
    g_free (engine->buckets[b].v);
  g_free (engine->buckets);
  g_free (engine->far.v);
  g_free (engine);
}

double
dps_engine_now (const DpsEngine *engine)
{
  return engine->now_s;
}

/* Schedules fn(engine, data) at absolute time time_s, which must not lie in
 * the past.  Returns an id for dps_engine_cancel; never DPS_EVENT_NONE. */
DpsEventId
dps_engine_at (DpsEngine *e, double time_s, DpsEventFn fn, void *data)
{
  g_return_val_if_fail (fn != NULL, DPS_EVENT_NONE);
  g_return_val_if_fail (time_s >= e->now_s, DPS_EVENT_NONE);
  if (e->n_free == 0)
    grow_slots (e);
  guint32 slot = e->free_list[--e->n_free];
  Slot *s = &e->slots[slot];
  s->fn = fn;
  s->data = data;
  s->live = TRUE;
  s->key = (e->next_seq++ << SLOT_BITS) | slot;
  enqueue (e, (Entry) { time_s, s->key });
  return ((guint64) s->gen << 32) | slot;
}

/* As dps_engine_at, delay_s (>= 0) after the current time. */
DpsEventId
dps_engine_after (DpsEngine *e, double delay_s, DpsEventFn fn, void *data)
{
  return dps_engine_at (e, e->now_s + delay_s, fn, data);
}

static void
release (DpsEngine *e, guint32 slot)
{
  Slot *s = &e->slots[slot];
  s->gen++;
  if (s->gen == 0)
    s->gen = 1;
  s->live = FALSE;
  e->free_list[e->n_free++] = slot;
}

/* Cancels a pending event.  Returns FALSE (and does nothing) when the event
 * has already fired or been cancelled, or id is DPS_EVENT_NONE.  Its entry
 * stays queued until it is next looked at. */
gboolean
dps_engine_cancel (DpsEngine *e, DpsEventId id)
{
  guint32 slot = (guint32) (id & 0xffffffffu);
  guint32 gen = (guint32) (id >> 32);
  if (id == DPS_EVENT_NONE || slot >= e->n_slots)
    return FALSE;
  Slot *s = &e->slots[slot];
  if (s->gen != gen || !s->live)
    return FALSE;
  release (e, slot);
  e->stale++;
  return TRUE;
}

/* Fires the earliest event, advancing the clock to its time.  Returns FALSE
 * when no event is pending. */
gboolean
dps_engine_step (DpsEngine *e)
{
  if (!refill (e))
    return FALSE;
  Entry top = e->heap.v[0];
  e->heap.v[0] = e->heap.v[--e->heap.len];
  if (e->heap.len > 0)
    sift_down (e->heap.v, e->heap.len, 0);
  Slot *s = &e->slots[KEY_SLOT (top.key)];
  DpsEventFn fn = s->fn;
  void *data = s->data;
  e->now_s = top.time_s;
  release (e, KEY_SLOT (top.key));
  e->fired++;
  fn (e, data);
  return TRUE;
}

/* Fires events until none is left. */
void
dps_engine_run (DpsEngine *e)
{
  while (dps_engine_step (e))
    ;
}

/* Fires every event at or before time_s, then sets the clock to time_s. */
void
dps_engine_run_until (DpsEngine *e, double time_s)
{
  while (refill (e) && e->heap.v[0].time_s <= time_s)
    dps_engine_step (e);
  if (time_s > e->now_s)
    e->now_s = time_s;
}

guint64
dps_engine_events_fired (const DpsEngine *e)
{
  return e->fired;
}

guint
dps_engine_pending (const DpsEngine *e)
{
  guint64 n = e->heap.len + e->far.len;
  for (guint32 b = e->cursor; b < e->n_buckets; b++)
    n += e->buckets[b].len;
  return (guint) (n - e->stale);
}
