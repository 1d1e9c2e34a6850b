/**
 * A local fake of SSM Parameter Store's API (AWS JSON 1.1: `POST /`, `X-Amz-Target: AmazonSSM.<Operation>`),
 * enough for GetParameter, GetParametersByPath (pages of at most 10, as SSM's) and PutParameter, reached
 * through `AWS_ENDPOINT_URL_SSM` like the real service.
 * Records each call so tests can check what was asked (decryption, names) and how (headers, the raw body a
 * signature covers), and holds the parameters in a map tests can change (rotation). `interject` answers a
 * call in the service's place (throttling, a 5xx, a malformed response) when it returns a reply.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface StoredParameter {
  value: string;
  type: "String" | "SecureString";
  version: number;
}

export interface FakeSsmCall {
  operation: string;
  body: Record<string, unknown>;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
}

/** A reply in the service's place: a status and the raw text of its body. */
export interface FakeSsmReply {
  status: number;
  body: string;
}

export interface FakeSsm {
  url: string;
  parameters: Map<string, StoredParameter>;
  calls: FakeSsmCall[];
  interject: ((call: FakeSsmCall) => FakeSsmReply | undefined) | undefined;
  /** Sets a SecureString (a new version when it exists). */
  put(name: string, value: string): void;
  stop(): Promise<void>;
}

export async function startFakeSsm(): Promise<FakeSsm> {
  const parameters = new Map<string, StoredParameter>();
  const calls: FakeSsm["calls"] = [];
  const fake = { interject: undefined as FakeSsm["interject"] };
  const put = (name: string, value: string, type: StoredParameter["type"] = "SecureString") => {
    parameters.set(name, { value, type, version: (parameters.get(name)?.version ?? 0) + 1 });
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    const body = JSON.parse(rawBody || "{}") as Record<string, unknown>;
    const operation = String(req.headers["x-amz-target"] ?? "").replace(/^AmazonSSM\./, "");
    const call = {
      operation,
      body,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      rawBody,
    };
    calls.push(call);
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
      res.end(JSON.stringify(payload));
    };
    const interjected = fake.interject?.(call);
    if (interjected !== undefined) {
      res.writeHead(interjected.status, { "content-type": "application/x-amz-json-1.1" });
      return res.end(interjected.body);
    }
    const name = String(body.Name ?? "");
    // Like SSM: a SecureString read without decryption comes back as ciphertext.
    const shown = (parameter: StoredParameter, decrypt: unknown) =>
      parameter.type === "SecureString" && decrypt !== true
        ? Buffer.from(`kms:${parameter.value}`).toString("base64")
        : parameter.value;
    if (operation === "GetParametersByPath") {
      const path = String(body.Path ?? "").replace(/\/+$/, "");
      const size = Math.min(Number(body.MaxResults ?? 10), 10);
      const start = Number(body.NextToken ?? 0);
      const under = [...parameters.entries()]
        .filter(([key]) => key.startsWith(`${path}/`))
        // Not recursive: only the path's direct children.
        .filter(([key]) => body.Recursive === true || !key.slice(path.length + 1).includes("/"))
        .sort(([a], [b]) => a.localeCompare(b));
      const page = under.slice(start, start + size);
      return reply(200, {
        Parameters: page.map(([key, parameter]) => ({
          Name: key,
          Type: parameter.type,
          Value: shown(parameter, body.WithDecryption),
          Version: parameter.version,
          DataType: "text",
        })),
        ...(start + size < under.length && { NextToken: String(start + size) }),
      });
    }
    if (operation === "GetParameter") {
      const parameter = parameters.get(name);
      if (!parameter)
        return reply(400, { __type: "ParameterNotFound", message: `Parameter ${name} not found.` });
      const value = shown(parameter, body.WithDecryption);
      return reply(200, {
        Parameter: {
          Name: name,
          Type: parameter.type,
          Value: value,
          Version: parameter.version,
          DataType: "text",
        },
      });
    }
    if (operation === "PutParameter") {
      if (parameters.has(name) && body.Overwrite !== true) {
        return reply(400, { __type: "ParameterAlreadyExists", message: "The parameter already exists." });
      }
      put(name, String(body.Value ?? ""), body.Type === "SecureString" ? "SecureString" : "String");
      return reply(200, { Version: parameters.get(name)?.version, Tier: "Standard" });
    }
    return reply(400, { __type: "InvalidAction", message: `${operation} is not supported by the fake` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    parameters,
    calls,
    get interject() {
      return fake.interject;
    },
    set interject(answer) {
      fake.interject = answer;
    },
    put: (name, value) => put(name, value),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
