/**
 * Checks a SigV4 signature the way AWS does: the request a fake received is signed again with the SDK's own
 * signer, at the time its `x-amz-date` names, over the headers its Authorization lists — so a test can assert
 * that the signature verifies with the right credentials and not with others.
 */
import { Sha256 } from "@smithy/core/checksum";
import { HttpRequest } from "@smithy/core/protocols";
import { SignatureV4 } from "@smithy/signature-v4";

/** A request as a local fake received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
}

export interface SigningKey {
  /** The fake's own URL (host and port are part of what is signed). */
  url: string;
  service: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

const header = (request: ReceivedRequest, name: string) => String(request.headers[name] ?? "");

/** `20261204T031500Z` as a Date. */
function amzDate(value: string): Date {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value) ?? [];
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

/** The Authorization header the SDK's signer gives `request` at the time it was signed, with `key`. */
export async function resignedAuthorization(request: ReceivedRequest, key: SigningKey): Promise<string> {
  const signed = /SignedHeaders=([^,]+)/.exec(header(request, "authorization"))?.[1]?.split(";") ?? [];
  const url = new URL(key.url);
  const resigned = await new SignatureV4({
    service: key.service,
    region: key.region,
    credentials: key.credentials,
    sha256: Sha256,
    uriEscapePath: true,
  }).sign(
    new HttpRequest({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: Number(url.port),
      path: request.path,
      headers: Object.fromEntries(
        // The signer adds the date, and the session token of the credentials it is given, itself.
        signed
          .filter((name) => name !== "x-amz-date" && name !== "x-amz-security-token")
          .map((name) => [name, header(request, name)]),
      ),
      body: request.body,
    }),
    { signingDate: amzDate(header(request, "x-amz-date")) },
  );
  return String(resigned.headers.authorization);
}
