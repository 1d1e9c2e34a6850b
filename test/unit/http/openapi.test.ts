/**
 * The API's description as lib/http/openapi.ts builds it, without a stack: the same every time (its ETag is a
 * hash of it), valid without a public URL, and made of the schemas the routes use. Served and checked against
 * real responses: test/integration/openapi.test.ts.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "#lib/http/openapi.ts";
import { questionRecordSchema } from "#lib/questions/question-record.ts";
import * as z from "#lib/zod.ts";

type Json = Record<string, any>;

describe("openApiDocument", () => {
  it("is the same document every time it is built", () => {
    expect(JSON.stringify(openApiDocument({ serverUrl: "https://api.example.org" }))).toBe(
      JSON.stringify(openApiDocument({ serverUrl: "https://api.example.org" })),
    );
  });

  it("without a public URL names the host it is served from, and still lints clean", async () => {
    const document = openApiDocument();
    expect(document.servers).toEqual([{ url: "/", description: "This deployment" }]);
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: "/openapi.json",
      config: await createConfig({ extends: ["recommended-strict"] }),
    });
    expect(problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
  });

  it("describes the question record with the schema its type is inferred from", () => {
    const { schemas } = (openApiDocument() as Json).components;
    const fromSchema = z.toJSONSchema(questionRecordSchema) as Json;
    expect(Object.keys(schemas.QuestionRecord.properties)).toEqual(Object.keys(fromSchema.properties));
    expect(schemas.QuestionRecord.required).toEqual(fromSchema.required);
    expect(schemas.QuestionRead.properties.question).toEqual({ $ref: "#/components/schemas/QuestionRecord" });
  });

  it("gives integers no bound but their own", () => {
    const text = JSON.stringify(openApiDocument());
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect((openApiDocument() as Json).components.schemas.QuestionRecord.properties.step).toMatchObject({
      type: "integer",
      minimum: 0,
    });
  });
});
