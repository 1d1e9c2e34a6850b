/**
 * The packaged deployment (`npm run package` → `.serverless/`), read the way CloudFormation and Lambda will
 * read it: the compiled template as JSON, and each function's zip.
 *
 * `ensurePackage()` packages again when `.serverless/` is missing or older than any input (CI packages
 * first, so there it only checks). Packaging takes 3–6 s; test files run in parallel processes, so a lock
 * directory makes one of them package while the others wait (serverless-esbuild's work folder is shared).
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { readServerlessFunctions } from "../../infra/local/serverless-functions.ts";
import { type CfnTemplate, readTemplate, TEMPLATE_FILE } from "../../scripts/lib/cloudformation.ts";
import { listZipEntries, readZipEntry, type ZipEntry } from "./zip.ts";

export type { CfnResource, CfnTemplate } from "../../scripts/lib/cloudformation.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * How long a test or hook that packages may take (the template tests write it out as 420_000). Packaging
 * bundles the AWS SDK into each function that calls AWS (esbuild parses ≈ 565 KB more of it per function than
 * when the SDK stayed outside): seconds on an idle machine, but 2–4 minutes were measured on a 2-core machine
 * loaded by other work.
 */
export const PACKAGE_TIMEOUT_MS = 420_000;
export const PACKAGE_DIR = join(ROOT, ".serverless");

/** Everything that goes into the package: a change to any of these makes `.serverless/` stale. */
const INPUTS = [
  "serverless.yml",
  "package.json",
  "package-lock.json",
  "infra/table.json",
  "infra/secrets.json",
  "infra/deploy",
  "infra/state-machines",
  "functions",
  "lib",
  "scripts",
];

const LOCK_DIR = join(
  tmpdir(),
  `handraise-package-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}`,
);
const LOCK_STALE_MS = 5 * 60_000;
const run = promisify(execFile);

/** Packages unless `.serverless/` is newer than every input. Returns the seconds packaging took, or 0. */
export async function ensurePackage(): Promise<number> {
  if (isFresh()) return 0;
  return withLock(async () => {
    if (isFresh()) return 0; // another test file packaged while this one waited
    const started = performance.now();
    await run("npm", ["run", "--silent", "package"], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return (performance.now() - started) / 1000;
  });
}

/**
 * Packages a copy of the project (its inputs, with node_modules linked) with extra environment variables,
 * e.g. canary secrets, and extra `osls package` options (`--param=channels=telegram`), and returns the
 * copy's `.serverless/` folder. A copy, because packaging clears the project's own `.serverless/` that the
 * other test files are reading. `remove()` deletes the copy.
 *
 * `bundles: "reuse"` is for a test that reads the template only: the copy takes the project's zips (call
 * `ensurePackage()` first) through serverless-esbuild's `skipBuild`, which packages in seconds where
 * building every bundle again costs half a minute of both cores. A test of what goes into a bundle (the
 * secret canaries) builds them.
 */
export async function packageCopy(
  env: Record<string, string>,
  options: string[] = [],
  { bundles }: { bundles: "build" | "reuse" } = { bundles: "build" },
): Promise<{ dir: string; remove(): void }> {
  const copy = mkdtempSync(join(tmpdir(), "handraise-package-copy-"));
  const remove = () => rmSync(copy, { recursive: true, force: true });
  try {
    for (const input of [...INPUTS, "tsconfig.json"]) {
      if (existsSync(join(ROOT, input))) cpSync(join(ROOT, input), join(copy, input), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    if (bundles === "reuse") reuseBundles(copy);
    await run("npm", ["run", "--silent", "package", ...(options.length > 0 ? ["--", ...options] : [])], {
      cwd: copy,
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { dir: join(copy, ".serverless"), remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Puts the project's zips where serverless-esbuild's `skipBuild` takes them from, and turns it on. A function
 * the project's package does not have (the durable agent, which only `durable=on` deploys) is built as usual:
 * one bundle, not fifteen.
 */
function reuseBundles(copy: string): void {
  mkdirSync(join(copy, ".serverless"));
  const zips = readdirSync(PACKAGE_DIR).filter((name) => name.endsWith(".zip"));
  for (const zip of zips) cpSync(join(PACKAGE_DIR, zip), join(copy, ".serverless", zip));
  const missing = readServerlessFunctions(ROOT)
    .map((fn) => fn.key)
    .filter((key) => !zips.includes(`${key}.zip`));
  const file = join(copy, "serverless.yml");
  const section = /^ {2}esbuild:\n/m;
  const yml = readFileSync(file, "utf8");
  if (!section.test(yml))
    throw new Error("serverless.yml has no custom.esbuild section to skip the build in");
  const settings = `    skipBuild: true\n    skipBuildExcludeFns: [${missing.join(", ")}]\n`;
  writeFileSync(
    file,
    yml.replace(section, (line) => `${line}${settings}`),
  );
}

/**
 * Every optional part on: per-function alarms, today's reserved concurrency, the durable agent. The template
 * tests package this one variant besides the default (packagedVariant), so each option is seen both ways.
 */
export const ALL_ON = ["--param=alarms=full", "--param=reserve=on", "--param=durable=on"];

/**
 * The package of the project with extra `osls package` options (`--param=durable=on`, …), bundles reused,
 * shared by every test file that asks for the same options: the first one packages (under the lock), the
 * others take its output, and it is packaged again only when an input or the project's own package is newer.
 * Kept in the temporary directory like a second `.serverless/`; never remove it.
 */
export async function packagedVariant(options: string[]): Promise<string> {
  await ensurePackage();
  const key = createHash("sha256").update(JSON.stringify(options)).digest("hex").slice(0, 12);
  const dir = `${LOCK_DIR}-variant-${key}`;
  const fresh = () => {
    const template = join(dir, TEMPLATE_FILE);
    if (!existsSync(template)) return false;
    const packagedAt = statSync(template).mtimeMs;
    return (
      packagedAt >= statSync(join(PACKAGE_DIR, TEMPLATE_FILE)).mtimeMs &&
      INPUTS.every((input) => newestMtime(join(ROOT, input)) <= packagedAt)
    );
  };
  if (fresh()) return dir;
  return withLock(async () => {
    if (fresh()) return dir;
    const copy = await packageCopy({}, options, { bundles: "reuse" });
    try {
      rmSync(dir, { recursive: true, force: true });
      cpSync(copy.dir, dir, { recursive: true });
      return dir;
    } finally {
      copy.remove();
    }
  }, `${dir}.lock`);
}

/**
 * cfn-lint's findings on the packaged templates in `dirs` (its settings: .cfnlintrc.yaml), "" when it finds
 * nothing. Throws, saying how to install it, when cfn-lint is missing: a template test must not pass unlinted.
 */
export async function cfnLint(dirs: string[]): Promise<string> {
  const templates = dirs.map((dir) => join(dir, TEMPLATE_FILE));
  try {
    const { stdout, stderr } = await run("cfn-lint", ["--", ...templates], { cwd: ROOT });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === "ENOENT") {
      throw new Error(
        "cfn-lint is not installed: `pip install cfn-lint==1.51.0` (Python 3.9 or newer), then run the template tests again",
      );
    }
    return `cfn-lint exited ${String(failure.code)}:\n${failure.stdout ?? ""}${failure.stderr ?? ""}`;
  }
}

export function loadTemplate(dir = PACKAGE_DIR): CfnTemplate {
  return readTemplate(dir);
}

export interface PackagedFunction {
  /** The key under `functions:` in serverless.yml, e.g. `questionsApi`. */
  key: string;
  logicalId: string;
  properties: Record<string, unknown>;
  zipPath: string;
  zip: Buffer;
  entries: ZipEntry[];
  read(entry: ZipEntry): Buffer;
}

/** Every Lambda function of the template with its zip (found by the S3 key the template deploys). */
export function packagedFunctions(template: CfnTemplate, dir = PACKAGE_DIR): PackagedFunction[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === "AWS::Lambda::Function")
    .map(([logicalId, resource]) => {
      const properties = resource.Properties ?? {};
      const code = properties.Code as { S3Key?: unknown } | undefined;
      if (typeof code?.S3Key !== "string") throw new Error(`${logicalId} has no packaged S3 code`);
      const zipPath = join(dir, basename(code.S3Key));
      const zip = readFileSync(zipPath);
      return {
        key: basename(code.S3Key, ".zip"),
        logicalId,
        properties,
        zipPath,
        zip,
        entries: listZipEntries(zip),
        read: (entry: ZipEntry) => readZipEntry(zip, entry),
      };
    });
}

function isFresh(): boolean {
  const templatePath = join(PACKAGE_DIR, TEMPLATE_FILE);
  if (!existsSync(templatePath)) return false;
  const packagedAt = statSync(templatePath).mtimeMs;
  return INPUTS.every((input) => newestMtime(join(ROOT, input)) <= packagedAt);
}

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}

async function withLock<T>(work: () => Promise<T>, lockDir = LOCK_DIR): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a killed run would block every later one.
      const lockedAt = statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs;
      if (lockedAt !== undefined && Date.now() - lockedAt > LOCK_STALE_MS) {
        rmSync(lockDir, { recursive: true, force: true });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  // Packaging can outlast LOCK_STALE_MS on a loaded machine: keep the lock fresh while it works.
  const heartbeat = setInterval(() => {
    const now = new Date();
    if (existsSync(lockDir)) utimesSync(lockDir, now, now);
  }, 30_000);
  try {
    return await work();
  } finally {
    clearInterval(heartbeat);
    rmSync(lockDir, { recursive: true, force: true });
  }
}
