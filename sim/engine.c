/* engine.c — see engine.h for the model. */
#include "sim/engine.h"

typedef struct {
  double     time_s;
  guint64    seq;
  DpsEventFn fn;
  void      *data;
  guint32    gen;      /* bumped each time the slot is freed */
  gint32     heap_pos; /* -1 when not in the heap */
} Slot;

/* Heap entries carry their keys so comparisons stay in one cache line. */
typedef struct {
  double  time_s;
  guint64 seq;
  guint32 slot;
} HeapEntry;

struct DpsEngine {
  double     now_s;
  guint64    next_seq;
  guint64    fired;
  Slot      *slots;
  guint32    n_slots;
  guint32   *free_list;
  guint32    n_free;
  HeapEntry *heap;
  guint32    heap_len;
};

static inline gboolean
entry_less (const HeapEntry *a, const HeapEntry *b)
{
  if (a->time_s != b->time_s)
    return a->time_s < b->time_s;
  return a->seq < b->seq;
}

static inline void
heap_place (DpsEngine *e, guint32 pos, HeapEntry entry)
{
  e->heap[pos] = entry;
  e->slots[entry.slot].heap_pos = (gint32) pos;
}

static void
sift_up (DpsEngine *e, guint32 pos)
{
  HeapEntry x = e->heap[pos];
  while (pos > 0) {
    guint32 parent = (pos - 1) / 2;
    if (!entry_less (&x, &e->heap[parent]))
      break;
    heap_place (e, pos, e->heap[parent]);
    pos = parent;
  }
  heap_place (e, pos, x);
}

static void
sift_down (DpsEngine *e, guint32 pos)
{
  HeapEntry x = e->heap[pos];
  guint32 n = e->heap_len;
  for (;;) {
    guint32 child = 2 * pos + 1;
    if (child >= n)
      break;
    if (child + 1 < n && entry_less (&e->heap[child + 1], &e->heap[child]))
      child++;
    if (!entry_less (&e->heap[child], &x))
      break;
    heap_place (e, pos, e->heap[child]);
    pos = child;
  }
  heap_place (e, pos, x);
}

static void
grow (DpsEngine *e)
{
  guint32 old = e->n_slots;
  guint32 n = old ? old * 2 : 256;
  e->slots = g_renew (Slot, e->slots, n);
  e->heap = g_renew (HeapEntry, e->heap, n);
  e->free_list = g_renew (guint32, e->free_list, n);
  for (guint32 i = n; i > old; i--) {
    e->slots[i - 1] = (Slot) { .gen = 1, .heap_pos = -1 };
    e->free_list[e->n_free++] = i - 1;
  }
  e->n_slots = n;
}

/* Returns a new engine at time 0 with no events; free with dps_engine_free. */
DpsEngine *
dps_engine_new (void)
{
  DpsEngine *e = g_new0 (DpsEngine, 1);
  grow (e);
  return e;
}

void
dps_engine_free (DpsEngine *engine)
{
  if (!engine)
    return;
  g_free (engine->slots);
  g_free (engine->heap);
  g_free (engine->free_list);
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
    grow (e);
  guint32 slot = e->free_list[--e->n_free];
  Slot *s = &e->slots[slot];
  s->time_s = time_s;
  s->seq = e->next_seq++;
  s->fn = fn;
  s->data = data;
  guint32 pos = e->heap_len++;
  heap_place (e, pos, (HeapEntry) { time_s, s->seq, slot });
  sift_up (e, pos);
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
  s->heap_pos = -1;
  e->free_list[e->n_free++] = slot;
}

static void
heap_remove (DpsEngine *e, guint32 pos)
{
  guint32 last = --e->heap_len;
  if (pos != last) {
    HeapEntry moved = e->heap[last];
    heap_place (e, pos, moved);
    if (pos > 0 && entry_less (&moved, &e->heap[(pos - 1) / 2]))
      sift_up (e, pos);
    else
      sift_down (e, pos);
  }
}

/* Cancels a pending event.  Returns FALSE (and does nothing) when the event
 * has already fired or been cancelled, or id is DPS_EVENT_NONE. */
gboolean
dps_engine_cancel (DpsEngine *e, DpsEventId id)
{
  guint32 slot = (guint32) (id & 0xffffffffu);
  guint32 gen = (guint32) (id >> 32);
  if (id == DPS_EVENT_NONE || slot >= e->n_slots)
    return FALSE;
  Slot *s = &e->slots[slot];
  if (s->gen != gen || s->heap_pos < 0)
    return FALSE;
  heap_remove (e, (guint32) s->heap_pos);
  release (e, slot);
  return TRUE;
}

/* Fires the earliest event, advancing the clock to its time.  Returns FALSE
 * when no event is pending. */
gboolean
dps_engine_step (DpsEngine *e)
{
  if (e->heap_len == 0)
    return FALSE;
  guint32 slot = e->heap[0].slot;
  Slot *s = &e->slots[slot];
  DpsEventFn fn = s->fn;
  void *data = s->data;
  e->now_s = s->time_s;
  heap_remove (e, 0);
  release (e, slot);
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
  while (e->heap_len > 0 && e->heap[0].time_s <= time_s)
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
  return e->heap_len;
}
