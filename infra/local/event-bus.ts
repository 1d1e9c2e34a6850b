/**
 * EventBridge's PutEvents for the local stack, over AWS JSON 1.1 (`POST /`, `X-Amz-Target:
 * AWSEvents.PutEvents`), so the handlers' own EventBridge client publishes to it through
 * `AWS_ENDPOINT_URL_EVENTBRIDGE`. Each event is printed as one line, `event ` and the JSON
 * `{"detail-type","source","detail"}`, and kept for tests. Fault injection like the other local services: `faults.failNext(n, spec)`
 * fails the next PutEvents calls with AWS's own error.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createFaultSwitch, type FaultSwitch } from "./faults.ts";
import { createServer } from "./local-server.ts";

export interface PublishedEvent {
  "detail-type": string;
  source: string;
  detail: Record<string, unknown>;
  eventBusName: string;
}

export interface LocalEventBus {
  url: string;
  /** Every event published since the start, in order. */
  events: PublishedEvent[];
  faults: FaultSwitch;
  stop(): Promise<void>;
}

interface PutEventsEntry {
  EventBusName?: string;
  Source?: string;
  DetailType?: string;
  Detail?: string;
}

export async function startLocalEventBus(options: {
  host: string;
  /** Where each event's line goes (default stdout). */
  print?: (line: string) => void;
  /** Called with each event as it is published (after it is kept and printed). */
  onEvent?: (event: PublishedEvent) => void;
}): Promise<LocalEventBus> {
  const events: PublishedEvent[] = [];
  const faults = createFaultSwitch();
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
      res.end(JSON.stringify(body));
    };
    const operation = String(req.headers["x-amz-target"] ?? "").replace(/^AWSEvents\./, "");
    const fault = faults.take(operation);
    if (fault) return reply(fault.status, { __type: fault.code, message: fault.message });
    if (operation !== "PutEvents") {
      return reply(400, {
        __type: "UnknownOperationException",
        message: `${operation} is not served locally`,
      });
    }
    let entries: PutEventsEntry[];
    try {
      entries =
        (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { Entries?: PutEventsEntry[] }).Entries ?? [];
    } catch {
      return reply(400, { __type: "ValidationException", message: "The body is not JSON." });
    }
    const results: { EventId?: string; ErrorCode?: string; ErrorMessage?: string }[] = [];
    for (const entry of entries) {
      let detail: Record<string, unknown>;
      try {
        detail = JSON.parse(entry.Detail ?? "{}") as Record<string, unknown>;
      } catch {
        results.push({ ErrorCode: "MalformedDetail", ErrorMessage: "Detail is not valid JSON." });
        continue;
      }
      const event: PublishedEvent = {
        "detail-type": entry.DetailType ?? "",
        source: entry.Source ?? "",
        detail,
        eventBusName: entry.EventBusName ?? "default",
      };
      events.push(event);
      print(`event ${JSON.stringify({ "detail-type": event["detail-type"], source: event.source, detail })}`);
      options.onEvent?.(event);
      results.push({ EventId: randomUUID() });
    }
    reply(200, { FailedEntryCount: results.filter((r) => r.ErrorCode).length, Entries: results });
  });
  await new Promise<void>((resolve) => server.listen(0, options.host, () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    events,
    faults,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
