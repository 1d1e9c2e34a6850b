/**
 * Where a notification may go (SSRF): deployed, only `https` URLs of hosts that resolve to public
 * addresses — never loopback, private (RFC 1918, unique local), link-local (the instance metadata service at
 * 169.254.169.254), carrier-grade NAT, multicast or reserved ranges. The URL is checked when the question is
 * asked, and every address the host resolves to is checked again at each attempt, on the connection itself
 * (`guardedLookup`), so a name that later resolves somewhere private (DNS rebinding) is refused too.
 * Redirects are never followed. Locally, `http://127.0.0.1` (and localhost) receivers are allowed as well.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { BlockList, isIP } from "node:net";

export interface NotifyUrlPolicy {
  /** The local stack: loopback receivers (`http://127.0.0.1:…`, `http://localhost:…`) are allowed. */
  allowLoopback: boolean;
}

export const MAX_NOTIFY_URL_LENGTH = 2048;

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  // The unspecified and loopback addresses, and the deprecated IPv4-compatible ones (::a00:1 is 10.0.0.1).
  ["::", 96],
  // IPv4-translated (SIIT): ::ffff:0:a00:1 names 10.0.0.1 as well.
  ["::ffff:0:0:0", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function family(address: string): "ipv4" | "ipv6" {
  return isIP(address) === 6 ? "ipv6" : "ipv4";
}

/** Whether a notification may connect to this address under the policy. */
export function isAllowedAddress(address: string, policy: NotifyUrlPolicy): boolean {
  const plain = unmapped(address);
  if (isIP(plain) === 0) return false;
  if (policy.allowLoopback && loopback.check(plain, family(plain))) return true;
  return !blocked.check(plain, family(plain));
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * What is wrong with a notify URL, as a sentence; undefined when it may be used. Names are resolved only
 * when sending (the check here needs no network).
 */
export function notifyUrlProblem(text: string, policy: NotifyUrlPolicy): string | undefined {
  if (text.length > MAX_NOTIFY_URL_LENGTH) return `must be at most ${MAX_NOTIFY_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute https URL";
  }
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  const host = url.hostname.toLowerCase();
  const isLoopbackName = LOOPBACK_NAMES.has(host);
  if (url.protocol === "http:" && policy.allowLoopback && isLoopbackName) return undefined;
  if (url.protocol !== "https:") {
    return policy.allowLoopback
      ? "must be an https URL (or http://127.0.0.1 on the local stack)"
      : "must be an https URL";
  }
  if (isLoopbackName && policy.allowLoopback) return undefined;
  const literal = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(literal) !== 0) {
    return isAllowedAddress(literal, policy) ? undefined : "must not point at a private or reserved address";
  }
  if (host === "localhost" || host.endsWith(".localhost") || !host.includes(".")) {
    return "must name a public host";
  }
  return undefined;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s) that resolves as usual and refuses the connection when any address the name
 * resolves to is not allowed: the check and the connection use the same answer.
 */
export function guardedLookup(policy: NotifyUrlPolicy) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const all: LookupAllOptions = {
      all: true,
      ...(options.family !== undefined && { family: options.family as 0 }),
    };
    dnsLookup(hostname, all, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => !isAllowedAddress(entry.address, policy));
      if (refused || addresses.length === 0) {
        const problem: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to an address notifications may not reach`,
        );
        problem.code = "EADDRNOTALLOWED";
        return callback(problem, []);
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}
