/**
 * 3. Scale: the answer path's median with 10, 1,000 and 10,000 pending questions in the table. Lookups are
 * by key, so the time must not grow with the number of pending questions.
 *
 * The pending questions that fill the table are copies of one question written by the real store code
 * (`create`: the question item with its sparse index attributes, and its session slot), each with its own
 * id, session, run and task token, written with BatchWriteItem — `create` one at a time would take half a
 * minute for 10,000. They share the measured questions' owner, so the owner index partition the answer
 * path leaves is the full one. The measured runs wait in small batches, so the table holds the stated
 * number of pending questions when each batch starts. Levels are visited up and back down (see below).
 */
import { randomBytes } from "node:crypto";
import {
  type AttributeValue,
  BatchWriteItemCommand,
  GetItemCommand,
  ScanCommand,
} from "@aws-sdk/client-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { encodeTaskToken } from "#infra/local/stepfunctions/task-token.ts";
import { normalizeAskUserArgs, questionIdFor } from "#lib/questions/index.ts";
import { createDynamoDbQuestionStore } from "#lib/store/dynamodb-question-store.ts";
import { CREATED_ORDER, INDEX, keys } from "#lib/store/keys.ts";
import { BENCH_OWNER, BENCH_TOOL_CALL, type BenchStack } from "./lib/bench-stack.ts";
import { type PairedSamples, samplePairs } from "./lib/paired.ts";
import { secondsSince } from "./lib/progress.ts";
import { median, type Summary, summarize } from "./lib/stats.ts";

export const SCALE_TARGET = 1.2;

export interface ScaleSizes {
  levels: number[];
  pairsPerLevel: number;
  /** Times the levels are visited up and back down. */
  cycles: number;
  /** Runs waiting at once (even): the table holds `level` pending questions when each batch starts. */
  batch: number;
}

export interface ScaleLevel {
  pending: number;
  subject: Summary;
  baseline: Summary;
  /** This level's answer-path median over the smallest level's. */
  ratioToSmallest: number;
}

export interface ScaleResult {
  levels: ScaleLevel[];
  /** Largest level's answer-path median over the smallest's. */
  ratio: number;
  /** The same for the baseline, to tell a slower table from a slower machine. */
  baselineRatio: number;
  /**
   * ratio / baselineRatio: growth of the answer path beyond what one conditional write by key on the same
   * table shows — what Handraise's own code adds as the table grows, with the machine's drift divided out.
   */
  relativeRatio: number;
  /** For scale: one Scan of the whole table at the largest level (what a lookup by scanning would cost). */
  scan: { items: number; ms: number };
  target: number;
  met: boolean;
  /** Each visit's medians, in order, to show how much the machine moved during the measurement. */
  visits: { pending: number; subjectMedian: number; baselineMedian: number }[];
  /** Writing the filler questions (each with its session slot) on the first climb to the largest level. */
  fill: { questions: number; seconds: number };
  listing: ListingResult;
}

/** `GET /questions?owner=` in pages: a walk of an owner's 1,000 pending, and the first page by level. */
export interface ListingResult {
  /** The owner's pending questions when its pages were walked. */
  pending: number;
  limit: number;
  pages: number;
  listed: number;
  maxQuestionsPerPage: number;
  /** The most DynamoDB Query requests one page made (the page reads at most `limit + 1` questions first). */
  maxQueriesPerPage: number;
  pageMs: Summary;
  /** The first page (same limit) with the smallest and the largest number of pending questions. */
  firstPage: { pending: number; medianMs: number }[];
  /** Largest level's first page over the smallest's. */
  firstPageRatio: number;
  /** Every question listed once, in pages of at most `limit`, each page a bounded read. */
  bounded: boolean;
}

export const LISTING_OWNER_PENDING = 1_000;
const LISTING_LIMIT = 100;

type Item = Record<string, unknown>;

/** Fills the table with pending questions cloned from one the store wrote, and removes them again. */
async function createFiller(bench: BenchStack) {
  const TableName = bench.stack.tableName;
  const store = createDynamoDbQuestionStore({
    client: bench.dynamodb,
    tableName: TableName,
    retentionSeconds: 7 * 86_400,
  });
  const request = normalizeAskUserArgs(BENCH_TOOL_CALL.arguments, {
    minTimeoutSeconds: 30,
    maxTimeoutSeconds: 3600,
  });
  const identity = (n: string) => {
    const runId = `arn:aws:states:us-east-1:000000000000:execution:handraise-local-agent:fill-${n}`;
    return {
      id: questionIdFor({ runId, toolCallId: BENCH_TOOL_CALL.id }),
      sessionKey: `fill-${n}`,
      runId,
      taskToken: encodeTaskToken(randomBytes(16).toString("hex")),
    };
  };
  const now = Date.now();
  const first = identity("template");
  const created = await store.create(
    { ...request, ...first, owner: BENCH_OWNER, deliverTo: [], createdAtMs: now },
    now,
  );
  if (created.kind !== "created") throw new Error(`the template question was not created: ${created.kind}`);
  const read = async (pk: string): Promise<Item> => {
    const out = await bench.dynamodb.send(
      new GetItemCommand({ TableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    if (!out.Item) throw new Error(`${pk} is missing`);
    return unmarshall(out.Item);
  };
  const question = await read(keys.question(first.id));
  const slot = await read(keys.sessionSlot(first.sessionKey));
  for (const attribute of [
    INDEX.pendingByOwner.partitionKey,
    INDEX.pendingBySession.partitionKey,
    CREATED_ORDER,
  ]) {
    if (!(attribute in question))
      throw new Error(`the stored question has no ${attribute}: update the clone`);
  }

  const written: Record<string, AttributeValue>[] = [
    { pk: { S: question.pk as string } },
    { pk: { S: slot.pk as string } },
  ];
  let serial = 0;

  async function batchWrite(
    requests: {
      PutRequest?: { Item: Record<string, AttributeValue> };
      DeleteRequest?: { Key: Record<string, AttributeValue> };
    }[],
  ) {
    const chunks: (typeof requests)[] = [];
    for (let i = 0; i < requests.length; i += 25) chunks.push(requests.slice(i, i + 25));
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let chunk = chunks[next++]; chunk; chunk = chunks[next++]) {
          let pending = chunk;
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt > 5) throw new Error("BatchWriteItem kept leaving items unprocessed");
            const out = await bench.dynamodb.send(
              new BatchWriteItemCommand({ RequestItems: { [TableName]: pending } }),
            );
            pending = (out.UnprocessedItems?.[TableName] ?? []) as typeof pending;
          }
        }
      }),
    );
  }

  return {
    /** Pending filler questions in the table. */
    get count() {
      return written.length / 2;
    },
    /** Adds filler questions until there are `count`. */
    async growTo(count: number): Promise<void> {
      const puts: { PutRequest: { Item: Record<string, AttributeValue> } }[] = [];
      while (written.length / 2 + puts.length / 2 < count) {
        const next = identity(String(++serial));
        const copy: Item = {
          ...question,
          ...next,
          pk: keys.question(next.id),
          [INDEX.pendingBySession.partitionKey]: keys.sessionIndex(next.sessionKey),
          [CREATED_ORDER]: keys.createdOrder(question.createdAtMs as number, next.id),
        };
        const slotCopy: Item = { ...slot, pk: keys.sessionSlot(next.sessionKey), questionId: next.id };
        puts.push({ PutRequest: { Item: marshall(copy) } }, { PutRequest: { Item: marshall(slotCopy) } });
      }
      await batchWrite(puts);
      for (const put of puts) written.push({ pk: put.PutRequest.Item.pk as AttributeValue });
    },
    /** Removes the newest filler questions until there are `count` (the template stays). */
    async shrinkTo(count: number): Promise<void> {
      const keep = Math.max(1, count) * 2;
      if (written.length <= keep) return;
      const removed = written.splice(keep);
      await batchWrite(removed.map((Key) => ({ DeleteRequest: { Key } })));
    },
    /** Checks one copy through the store: listed as pending in its session, readable by id. */
    async verify(): Promise<void> {
      if (serial === 0) return;
      const sessionKey = `fill-${serial}`;
      const listed = await store.listPending({ sessionKey }, Date.now());
      if (listed.length !== 1 || listed[0]?.status !== "pending") {
        throw new Error(`a filler question is not pending in its session (${listed.length} listed)`);
      }
      const record = await store.get(listed[0].id, Date.now());
      if (record?.owner !== BENCH_OWNER) throw new Error("a filler question does not read back");
    },
    async clear(): Promise<void> {
      await batchWrite(written.map((Key) => ({ DeleteRequest: { Key } })));
      written.length = 0;
    },
  };
}

export async function measureScale(
  bench: BenchStack,
  sizes: ScaleSizes,
  log: (line: string) => void = () => undefined,
): Promise<ScaleResult> {
  if (sizes.batch % 2 !== 0) throw new Error("the batch of waiting runs must be even (pairs)");
  const levels = [...sizes.levels].sort((a, b) => a - b);
  // Up and back down (10, 1,000, 10,000, 10,000, 1,000, 10), `cycles` times, an equal share of the samples
  // on each visit: every level's samples are centred on the same moments, so a machine that speeds up or
  // slows down (warming up, or other work on this shared machine) does not favour one level, and a burst
  // of load lands in one visit of one level rather than in all its samples.
  const visits = Array.from({ length: sizes.cycles }, () => [...levels, ...[...levels].reverse()]).flat();
  const pairsPerVisit = Math.max(1, Math.ceil(sizes.pairsPerLevel / (2 * sizes.cycles)));
  const filler = await createFiller(bench);
  const samples = new Map<number, PairedSamples>(
    levels.map((level) => [level, { subject: [], baseline: [] }]),
  );
  const pendingAt = new Map<number, number>();
  const visitLog: ScaleResult["visits"] = [];
  let scan = { items: 0, ms: 0 };
  const fill = { questions: 0, seconds: 0 };
  const listingLevel = levels.includes(LISTING_OWNER_PENDING) ? LISTING_OWNER_PENDING : levels[1];
  let walk: Omit<ListingResult, "firstPage" | "firstPageRatio" | "bounded"> | undefined;
  const firstPage = new Map<number, number>();
  const sampleVisit = async (): Promise<PairedSamples> => {
    const visitSamples: PairedSamples = { subject: [], baseline: [] };
    for (let pairs = 0; pairs < pairsPerVisit; pairs += sizes.batch / 2) {
      const runs = await bench.startWaitingRuns(Math.min(sizes.batch, (pairsPerVisit - pairs) * 2));
      const batch = await samplePairs(bench, runs);
      visitSamples.subject.push(...batch.subject);
      visitSamples.baseline.push(...batch.baseline);
    }
    return visitSamples;
  };
  try {
    // One visit not counted: in every full run so far the first one ran slow (13 ms against 5-10 ms later).
    await sampleVisit();
    for (const [visit, level] of visits.entries()) {
      // Where a visit's time goes, for the log: at 100,000 pending the filler dominates.
      const took: string[] = [];
      const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
        const started = performance.now();
        const result = await work();
        took.push(`${what} ${secondsSince(started)} s`);
        return result;
      };
      const fillers = Math.max(1, level - sizes.batch);
      if (fillers > filler.count) {
        const before = filler.count;
        const started = performance.now();
        await timed(`write ${fillers - before} filler`, () => filler.growTo(fillers));
        if (visit < levels.length) {
          fill.questions += filler.count - before;
          fill.seconds += (performance.now() - started) / 1000;
        }
        if (visit === levels.length - 1) scan = await timed("scan", () => scanTable(bench));
        await filler.verify();
      } else if (fillers < filler.count) {
        await timed(`remove ${filler.count - fillers} filler`, () => filler.shrinkTo(fillers));
      }
      if (visit < levels.length && level === listingLevel && walk === undefined) {
        // The owner's pending questions are the filler (the measured runs are not waiting yet): exactly
        // `level` of them while the pages are walked.
        await filler.growTo(level);
        walk = await timed("listing", () => walkPages(bench, level));
        await filler.shrinkTo(Math.max(1, level - sizes.batch));
      }
      if (visit < levels.length && (level === levels[0] || level === levels.at(-1))) {
        firstPage.set(level, await timed("first pages", () => firstPageMedian(bench)));
      }
      pendingAt.set(level, filler.count + sizes.batch);
      const collected = samples.get(level);
      if (!collected) throw new Error(`no samples for level ${level}`);
      const visitSamples = await timed("answers", sampleVisit);
      log(`scale: visit ${visit + 1} of ${visits.length}, ${level} pending: ${took.join(", ")}`);
      collected.subject.push(...visitSamples.subject);
      collected.baseline.push(...visitSamples.baseline);
      visitLog.push({
        pending: filler.count + sizes.batch,
        subjectMedian: median(visitSamples.subject),
        baselineMedian: median(visitSamples.baseline.map((b) => b.ms)),
      });
    }
  } finally {
    const started = performance.now();
    await filler.clear();
    log(`scale: filler cleared in ${secondsSince(started)} s`);
  }
  const summaries = levels.map((level) => {
    const collected = samples.get(level) ?? { subject: [], baseline: [] };
    return {
      pending: pendingAt.get(level) ?? level,
      subject: summarize(collected.subject),
      baseline: summarize(collected.baseline.map((b) => b.ms)),
    };
  });
  const smallest = summaries[0];
  const largest = summaries[summaries.length - 1];
  if (!smallest || !largest) throw new Error("no scale levels");
  const ratio = largest.subject.median / smallest.subject.median;
  if (!walk) throw new Error("the listing was not walked");
  const firstPages = [...firstPage.entries()].map(([level, medianMs]) => ({
    pending: pendingAt.get(level) ?? level,
    medianMs,
  }));
  const listing: ListingResult = {
    ...walk,
    firstPage: firstPages,
    firstPageRatio: (firstPages.at(-1)?.medianMs ?? Number.NaN) / (firstPages[0]?.medianMs ?? Number.NaN),
    bounded:
      walk.listed === walk.pending &&
      walk.maxQuestionsPerPage <= walk.limit &&
      walk.maxQueriesPerPage <= 2 &&
      walk.pages === Math.ceil(walk.pending / walk.limit),
  };
  const baselineRatio = largest.baseline.median / smallest.baseline.median;
  return {
    levels: summaries.map((level) => ({
      ...level,
      ratioToSmallest: level.subject.median / smallest.subject.median,
    })),
    ratio,
    baselineRatio,
    relativeRatio: ratio / baselineRatio,
    scan,
    target: SCALE_TARGET,
    met: ratio <= SCALE_TARGET,
    visits: visitLog,
    fill,
    listing,
  };
}

async function listPage(bench: BenchStack, cursor?: string) {
  const query = new URLSearchParams({ owner: BENCH_OWNER, limit: String(LISTING_LIMIT) });
  if (cursor !== undefined) query.set("cursor", cursor);
  const started = performance.now();
  const response = await fetch(`${bench.stack.httpUrl}/questions?${query}`, {
    headers: { authorization: `Bearer ${bench.stack.apiKey}` },
  });
  const body = (await response.json()) as { questions?: unknown[]; nextCursor?: string };
  const ms = performance.now() - started;
  if (response.status !== 200 || !body.questions) throw new Error(`GET /questions: HTTP ${response.status}`);
  return { ms, questions: body.questions.length, nextCursor: body.nextCursor };
}

/** Every page of the owner's pending questions, each page's DynamoDB Query requests counted. */
async function walkPages(bench: BenchStack, pending: number) {
  const pageMs: number[] = [];
  let listed = 0;
  let maxQuestionsPerPage = 0;
  let maxQueriesPerPage = 0;
  let cursor: string | undefined;
  do {
    const { result, requests } = await bench.timeRequests(() => listPage(bench, cursor));
    pageMs.push(result.ms);
    listed += result.questions;
    maxQuestionsPerPage = Math.max(maxQuestionsPerPage, result.questions);
    maxQueriesPerPage = Math.max(
      maxQueriesPerPage,
      requests.filter((r) => r.label.startsWith("Query")).length,
    );
    cursor = result.nextCursor;
  } while (cursor !== undefined && pageMs.length <= pending);
  return {
    pending,
    limit: LISTING_LIMIT,
    pages: pageMs.length,
    listed,
    maxQuestionsPerPage,
    maxQueriesPerPage,
    pageMs: summarize(pageMs),
  };
}

/** The first page's median over a few requests. */
async function firstPageMedian(bench: BenchStack): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) times.push((await listPage(bench)).ms);
  return median(times);
}

/** Reads every item of the table with Scan (the benchmark's client; the product never scans). */
async function scanTable(bench: BenchStack): Promise<{ items: number; ms: number }> {
  const started = performance.now();
  let items = 0;
  let ExclusiveStartKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await bench.dynamodb.send(
      new ScanCommand({ TableName: bench.stack.tableName, ExclusiveStartKey }),
    );
    items += page.Count ?? 0;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { items, ms: performance.now() - started };
}
