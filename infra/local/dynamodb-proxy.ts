/**
 * The DynamoDB endpoint of the local stack: a thin HTTP proxy in front of dynalite. It forwards every request
 * unchanged and adds the two things dynalite lacks:
 * - fault injection (`faults.failNext`): the next N matching calls answer with DynamoDB's own error body
 *   and status, before reaching dynalite, so nothing is written — as when DynamoDB throttles a request —
 *   or, with `applied`, after dynalite has served them (a write applied and its response lost);
 * - change capture for the DynamoDB Streams emulation (dynamodb-streams.ts): around each write it reads the
 *   item before and after (consistent GetItem straight against dynalite) and reports what changed.
 * It hands each request to dynalite in process (`LocalDynamoDb.serve`, dynamodb.ts), not over a second
 * HTTP connection: every DynamoDB call of the handlers would otherwise cross HTTP twice.
 *
 * Differences from AWS, on purpose: writes through the proxy are serialized per item (so the before and
 * after images of a write are its own, as a stream's would be); a write made straight to dynalite (only
 * the stack's table creation does that) is not captured.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { DynamoDbWireRequest, DynamoDbWireResponse, LocalDynamoDb } from "./dynamodb.ts";
import { createFaultSwitch, type FaultSwitch, type InjectedFault } from "./faults.ts";
import { createServer } from "./local-server.ts";

const TARGET_PREFIX = "DynamoDB_20120810.";
/** DynamoDB's error type prefix (the SDK takes the name after `#`). */
const ERROR_NAMESPACE = "com.amazonaws.dynamodb.v20120810#";
const WRITES = new Set(["PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"]);

export type Item = Record<string, AttributeValue>;

/** One item changed by a write: its key and its images (undefined: it did not exist). */
export interface ItemChange {
  tableName: string;
  keys: Item;
  oldImage: Item | undefined;
  newImage: Item | undefined;
}

export interface DynamoDbProxyOptions {
  /** dynalite, which serves every request the proxy lets through, and the image reads. */
  dynamodb: Pick<LocalDynamoDb, "serve">;
  host?: string;
  port?: number;
  /** The key attribute names of each table (from infra/table.json). */
  keyAttributes: (tableName: string) => string[];
  /** Called after each successful write that changed an item; when absent, writes are not captured. */
  onChange?: (change: ItemChange) => void;
}

export interface DynamoDbProxy {
  url: string;
  faults: FaultSwitch;
  /**
   * Serves one request in this process exactly as the proxy's port serves it (faults, change capture):
   * what the local stack's handlers use instead of a socket (in-process-http-handler.ts).
   */
  serve(request: DynamoDbWireRequest): Promise<DynamoDbWireResponse>;
  stop(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The headers of the proxy's own GetItem for an image. dynalite requires a request to carry a SigV4
 * Authorization header and a date, but checks neither the signature nor the credentials.
 */
const IMAGE_READ_HEADERS = {
  "content-type": "application/x-amz-json-1.0",
  "x-amz-target": `${TARGET_PREFIX}GetItem`,
  "x-amz-date": "20200101T000000Z",
  authorization:
    "AWS4-HMAC-SHA256 Credential=local/20200101/us-east-1/dynamodb/aws4_request, " +
    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=local",
};

/** The members of the write requests the proxy reads (the wire form: attribute values as JSON). */
interface WriteInput {
  TableName?: string;
  Item?: Item;
  Key?: Item;
  RequestItems?: Record<string, { PutRequest?: { Item?: Item }; DeleteRequest?: { Key?: Item } }[]>;
}

/** The (table, key) pairs a write request touches. */
function touchedKeys(
  operation: string,
  input: WriteInput,
  keyAttributes: (tableName: string) => string[],
): { tableName: string; keys: Item }[] {
  const keyOf = (tableName: string, item: Item | undefined): Item =>
    Object.fromEntries(
      keyAttributes(tableName).flatMap((name) => (item?.[name] ? [[name, item[name]]] : [])),
    );
  const table = input.TableName ?? "";
  if (operation === "PutItem") return [{ tableName: table, keys: keyOf(table, input.Item) }];
  if (operation === "UpdateItem" || operation === "DeleteItem") {
    return [{ tableName: table, keys: keyOf(table, input.Key) }];
  }
  // BatchWriteItem
  return Object.entries(input.RequestItems ?? {}).flatMap(([tableName, requests]) =>
    requests.map((r) => ({
      tableName,
      keys: keyOf(tableName, r.PutRequest ? r.PutRequest.Item : r.DeleteRequest?.Key),
    })),
  );
}

export async function startDynamoDbProxy(options: DynamoDbProxyOptions): Promise<DynamoDbProxy> {
  const faults = createFaultSwitch();
  /** Per-item chains: a write waits for the previous write on the same item (see the header). */
  const itemLocks = new Map<string, Promise<void>>();

  async function withItemLocks<T>(lockKeys: string[], work: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(lockKeys)].sort();
    const previous = sorted.map((key) => itemLocks.get(key) ?? Promise.resolve());
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    for (const key of sorted) itemLocks.set(key, mine);
    await Promise.all(previous);
    try {
      return await work();
    } finally {
      release();
      for (const key of sorted) if (itemLocks.get(key) === mine) itemLocks.delete(key);
    }
  }

  async function image(tableName: string, keys: Item): Promise<Item | undefined> {
    const response = await options.dynamodb.serve({
      method: "POST",
      url: "/",
      headers: IMAGE_READ_HEADERS,
      body: Buffer.from(JSON.stringify({ TableName: tableName, Key: keys, ConsistentRead: true })),
    });
    if (response.status !== 200) {
      throw new Error(`reading ${tableName}'s item for its stream image failed: ${response.body.toString()}`);
    }
    return (JSON.parse(response.body.toString("utf8")) as { Item?: Item }).Item;
  }

  async function serve(request: DynamoDbWireRequest): Promise<DynamoDbWireResponse> {
    const { body } = request;
    const forward = () => options.dynamodb.serve(request);
    const targetHeader = request.headers["x-amz-target"];
    const operation =
      typeof targetHeader === "string" && targetHeader.startsWith(TARGET_PREFIX)
        ? targetHeader.slice(TARGET_PREFIX.length)
        : "";
    const fault = faults.take(operation);
    const failure = (injected: InjectedFault): DynamoDbWireResponse => ({
      status: injected.status,
      headers: { "Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": randomUUID() },
      body: Buffer.from(
        JSON.stringify({ __type: `${ERROR_NAMESPACE}${injected.code}`, message: injected.message }),
      ),
    });
    if (fault && !fault.applied) return failure(fault);
    const onChange = options.onChange;
    let forwarded: DynamoDbWireResponse;
    if (!onChange || !WRITES.has(operation)) {
      forwarded = await forward();
    } else {
      let touched: { tableName: string; keys: Item }[] = [];
      try {
        touched = touchedKeys(
          operation,
          JSON.parse(body.toString("utf8")) as WriteInput,
          options.keyAttributes,
        ).filter((t) => t.tableName && t.keys && Object.keys(t.keys).length > 0);
      } catch {
        touched = []; // not valid JSON: dynalite answers the error, nothing is written
      }
      const lockKeys = touched.map((t) => `${t.tableName}\n${JSON.stringify(t.keys)}`);
      forwarded = await withItemLocks(lockKeys, async () => {
        const before = await Promise.all(
          touched.map((t) => image(t.tableName, t.keys).catch(() => undefined)),
        );
        const result = await forward();
        if (result.status !== 200) return result;
        const after = await Promise.all(touched.map((t) => image(t.tableName, t.keys)));
        touched.forEach((t, i) => {
          const [oldImage, newImage] = [before[i], after[i]];
          // DynamoDB writes no stream record for a write that changed nothing.
          if (JSON.stringify(oldImage) === JSON.stringify(newImage)) return;
          onChange({ tableName: t.tableName, keys: t.keys, oldImage, newImage });
        });
        return result;
      });
    }
    return fault ? failure(fault) : forwarded;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const served = await serve({
      method: request.method ?? "GET",
      url: request.url ?? "/",
      headers: request.headers,
      body,
    });
    const { "transfer-encoding": _te, ...headers } = served.headers;
    response.writeHead(served.status, { ...headers, "content-length": String(served.body.length) });
    response.end(served.body);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent || response.destroyed) return;
      console.error("local-dynamodb-proxy: internal error", error);
      const text = JSON.stringify({
        __type: `${ERROR_NAMESPACE}InternalServerError`,
        message: "Internal error",
      });
      response.writeHead(500, { "Content-Type": "application/x-amz-json-1.0" });
      response.end(text);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { address, port } = server.address() as AddressInfo;
  const urlHost = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${urlHost}:${port}`,
    faults,
    serve,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
