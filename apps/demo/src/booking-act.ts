import type { Timeline, RecordedEvent } from './print';
import { formatTimeline } from './print';
import { TravelService } from './travel-service';

type Call = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => Promise<T>;

interface RollbackView {
  rollbackId: string;
  status: string;
  effects: { toolCallId: string; tool: string; status: string; attempts: number; detail: unknown }[];
}

/**
 * Act 2 of the demo (issue 4): a real local HTTP travel service; the agent books a flight
 * and a hotel; the user says "not that hotel"; undo makes the saga cancel the hotel
 * through the service's cancel endpoint, and the flight stays booked.
 */
export async function runBookingAct(call: Call, out: (line: string) => void, heading: (title: string) => void): Promise<void> {
  const travel = new TravelService();
  await travel.start();
  try {
    heading(`Act 2: side effects. A travel service runs at ${travel.url}`);
    for (const kind of ['flights', 'hotels'] as const) {
      await call('PUT', `/v1/tools/book_${kind}`, {
        kind: 'reversible',
        compensation: { channel: 'http', target: `${travel.url}/${kind}/{{output.bookingId}}/cancel`, payload: { reason: 'the user undid this step' } },
        retry: { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 2000, timeoutMs: 5000 },
      });
      out(`  PUT /v1/tools/book_${kind}   reversible; undo = POST ${travel.url}/${kind}/{{output.bookingId}}/cancel`);
    }
    const id = 'booking';
    await call('POST', '/v1/sessions', { sessionId: id, title: 'Book the Lisbon trip' });
    await call('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'Book the FR1142 flight and a hotel in Alfama.' });
    const booked: Record<string, string> = {};
    for (const [kind, callId, input] of [
      ['flights', 'book-flight', { flight: 'FR1142', date: '2025-06-02' }],
      ['hotels', 'book-hotel', { hotel: 'Alfama Inn', nights: 3 }],
    ] as const) {
      await call('POST', `/v1/sessions/${id}/tool-calls`, { toolCallId: callId, tool: `book_${kind}`, input });
      const response = await fetch(`${travel.url}/${kind}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
      const output = (await response.json()) as { bookingId: string };
      await call('POST', `/v1/sessions/${id}/tool-calls/${callId}/succeed`, { output });
      booked[kind] = output.bookingId;
      out(`  agent: book_${kind}(${JSON.stringify(input)})  ->  booking ${output.bookingId}`);
    }
    await call('POST', `/v1/sessions/${id}/messages`, { role: 'agent', content: 'Booked the flight and Alfama Inn.' });
    await call('POST', `/v1/sessions/${id}/messages`, { role: 'user', content: 'No, not that hotel!' });

    heading('Undo the hotel booking: the saga cancels it at the travel service');
    const plan = await call<{ plan: { toCompensate: { toolCallId: string }[] } }>('POST', `/v1/sessions/${id}/rollback`, { toVersion: 4, dryRun: true });
    out(`  dry run: would compensate ${plan.plan.toCompensate.map((e) => e.toolCallId).join(', ')}`);
    const result = await call<{ rollbackId: string; head: number; rollback: RollbackView }>('POST', `/v1/sessions/${id}/rollback`, {
      toVersion: 4,
      waitMs: 10_000,
    });
    out(`  POST /rollback {"toVersion":4}  ->  rollback ${result.rollback.status}, head v${result.head}`);
    for (const effect of result.rollback.effects) {
      out(
        `    ${effect.tool} "${effect.toolCallId}": ${effect.status} after ${effect.attempts} attempt(s); the service answered ${JSON.stringify(effect.detail)}`,
      );
    }
    out(
      `  at the travel service: flight ${booked.flights} is ${travel.bookings.get(booked.flights!)?.status}, hotel ${booked.hotels} is ${travel.bookings.get(booked.hotels!)?.status}`,
    );

    heading('Timeline: the abandoned branch stays, with its compensated hotel');
    const timeline = await call<Timeline>('GET', `/v1/sessions/${id}/timeline`);
    const events: { events: RecordedEvent[] } = await call('GET', `/v1/sessions/${id}/events?limit=1000`);
    for (const line of formatTimeline(timeline, events.events)) out(line);
  } finally {
    await travel.stop();
  }
}
