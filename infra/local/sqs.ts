/**
 * What SQS and Lambda's SQS event source mapping do for the local stack (AWS_ENDPOINT_URL_SQS): SendMessage
 * over the AWS JSON protocol, each message held for its DelaySeconds, then handed to the functions whose
 * serverless.yml `sqs` event names the queue, one message per invocation. A message the handler fails (it
 * throws, or lists it in `batchItemFailures`) is received again after a short visibility timeout, up to the
 * queue's maxReceiveCount (5), then it is dead-lettered: here, a list the stack keeps.
 *
 * Differences from AWS, kept small on purpose: one message per invocation (AWS batches up to `batchSize`);
 * the visibility timeout is 200 ms, not the queue's; nothing persists, so a local stack that stops drops what
 * it held; messages are not deduplicated or reordered; only SendMessage is served.
 */
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context, SQSEvent } from "aws-lambda";
import { lambdaContext } from "./lambda-context.ts";
import { createServer } from "./local-server.ts";

export interface QueueConsumer {
  name: string;
  handler: (event: SQSEvent, context: Context) => Promise<unknown>;
}

export interface DeadLetter {
  queue: string;
  body: string;
  receives: number;
}

export interface LocalSqs {
  url: string;
  queueUrl(queue: string): string;
  /** Resolves once no message is waiting or being handled. */
  drained(): Promise<void>;
  deadLetters: DeadLetter[];
  stop(): Promise<void>;
}

const MAX_RECEIVES = 5;
const VISIBILITY_MS = 200;

export async function startLocalSqs(options: {
  host: string;
  port?: number;
  region: string;
  account: string;
  consumers: (queue: string) => QueueConsumer[];
}): Promise<LocalSqs> {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const deadLetters: DeadLetter[] = [];
  let baseUrl = "";
  const queueUrl = (queue: string) => `${baseUrl}/${options.account}/${queue}`;

  const later = (ms: number, run: () => Promise<void>) => {
    let settle: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    inFlight.add(done);
    const timer = setTimeout(() => {
      timers.delete(timer);
      run().finally(() => {
        inFlight.delete(done);
        settle();
      });
    }, ms);
    timers.add(timer);
  };

  function enqueue(queue: string, body: string, delayMs: number, receives = 0): void {
    if (stopped) return;
    later(delayMs, async () => {
      if (stopped) return;
      for (const consumer of options.consumers(queue)) {
        const messageId = randomUUID();
        const event: SQSEvent = {
          Records: [
            {
              messageId,
              receiptHandle: randomUUID(),
              body,
              attributes: {
                ApproximateReceiveCount: String(receives + 1),
                SentTimestamp: String(Date.now()),
                SenderId: options.account,
                ApproximateFirstReceiveTimestamp: String(Date.now()),
              },
              messageAttributes: {},
              md5OfBody: md5(body),
              eventSource: "aws:sqs",
              eventSourceARN: `arn:aws:sqs:${options.region}:${options.account}:${queue}`,
              awsRegion: options.region,
            },
          ],
        };
        let failed = false;
        try {
          const result = (await consumer.handler(event, lambdaContext(consumer.name))) as
            | { batchItemFailures?: unknown[] }
            | undefined;
          failed = (result?.batchItemFailures?.length ?? 0) > 0;
        } catch {
          failed = true;
        }
        if (!failed) continue;
        if (receives + 1 >= MAX_RECEIVES) deadLetters.push({ queue, body, receives: receives + 1 });
        else enqueue(queue, body, VISIBILITY_MS, receives + 1);
      }
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = String(req.headers["x-amz-target"] ?? "");
    const input = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as {
      QueueUrl?: string;
      MessageBody?: string;
      DelaySeconds?: number;
    };
    if (target !== "AmazonSQS.SendMessage") {
      return reply(res, 400, {
        __type: "com.amazonaws.sqs#InvalidAction",
        message: `${target} is not served locally`,
      });
    }
    const queue = (input.QueueUrl ?? "").split("/").pop() ?? "";
    if (options.consumers(queue).length === 0 || typeof input.MessageBody !== "string") {
      return reply(res, 400, {
        __type: "com.amazonaws.sqs#QueueDoesNotExist",
        message: "The queue does not exist.",
      });
    }
    const delay = Math.min(900, Math.max(0, input.DelaySeconds ?? 0));
    enqueue(queue, input.MessageBody, delay * 1000);
    reply(res, 200, { MessageId: randomUUID(), MD5OfMessageBody: md5(input.MessageBody) });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      reply(res, 500, { __type: "InternalFailure", message: error instanceof Error ? error.message : "" }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  baseUrl = `http://${address}:${port}`;
  return {
    url: baseUrl,
    queueUrl,
    deadLetters,
    async drained() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      inFlight.clear();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function md5(text: string): string {
  return createHash("md5").update(text).digest("hex");
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/x-amz-json-1.0" });
  res.end(JSON.stringify(body));
}
