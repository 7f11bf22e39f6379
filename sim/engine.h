/* engine — discrete-event simulation kernel.
 *
 * The engine owns a simulated clock (seconds, double) and a 4-ary min-heap
 * of pending events.  Each event is a callback with a user pointer, fired at
 * its time.  Events with equal times fire in the order they were scheduled
 * (a sequence number breaks ties), so a run is fully deterministic.
 *
 * Events live in a slot pool that grows by doubling and is recycled through
 * a free list: in steady state, scheduling and firing allocate nothing.
 * A scheduled event is named by a DpsEventId (slot and generation), which
 * stays safe to cancel after the event has fired or been cancelled.
 * Cancelling frees the slot at once and leaves the heap entry to be
 * dropped when it surfaces (or when cancelled entries are half the heap):
 * sifting then moves heap entries alone.
 */
#pragma once

#include <glib.h>

typedef struct DpsEngine DpsEngine;
typedef void (*DpsEventFn) (DpsEngine *engine, void *data);
typedef guint64 DpsEventId;

#define DPS_EVENT_NONE ((DpsEventId) 0)

DpsEngine  *dps_engine_new (void);
void        dps_engine_free (DpsEngine *engine);
double      dps_engine_now (const DpsEngine *engine);
DpsEventId  dps_engine_at (DpsEngine *engine, double time_s, DpsEventFn fn, void *data);
DpsEventId  dps_engine_after (DpsEngine *engine, double delay_s, DpsEventFn fn, void *data);
gboolean    dps_engine_cancel (DpsEngine *engine, DpsEventId id);
gboolean    dps_engine_step (DpsEngine *engine);
void        dps_engine_run (DpsEngine *engine);
void        dps_engine_run_until (DpsEngine *engine, double time_s);
guint64     dps_engine_events_fired (const DpsEngine *engine);
guint       dps_engine_pending (const DpsEngine *engine);
