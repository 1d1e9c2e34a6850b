/**
 * Just enough Markdown for the docs test: fenced code blocks (with their info string and line), links, and
 * the anchors GitHub gives headings.
 */

export interface CodeBlock {
  /** The file it is in, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string after the fence, e.g. `sh runnable`. */
  info: string;
  /** The block's text, without the fences and without the indentation of the opening fence. */
  code: string;
}

/** The marker that makes a block an example the docs test runs: the info string ```` ```sh runnable ````. */
export const RUNNABLE_MARKER = "runnable";

const OPENING_FENCE = /^( *)(`{3,}|~{3,})(.*)$/;

/** Every fenced code block of a Markdown text, also those indented inside list items. */
export function fencedBlocks(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING_FENCE.exec(lines[i] ?? "");
    if (!open) continue;
    const [, indent = "", fence = "", info = ""] = open;
    // A backtick fence's info string cannot contain a backtick (that is inline code, not a fence).
    if (fence.startsWith("`") && info.includes("`")) continue;
    const closing = new RegExp(`^ *${fence[0] === "`" ? "`" : "~"}{${fence.length},} *$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j] ?? ""); j++) {
      const text = lines[j] ?? "";
      body.push(text.startsWith(indent) ? text.slice(indent.length) : text.trimStart());
    }
    blocks.push({ file, line: i + 1, info: info.trim(), code: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** A shell block marked to run: its language is sh (or bash, shell) and its info string says `runnable`. */
export function isRunnable(block: CodeBlock): boolean {
  const [language, ...words] = block.info.split(/\s+/);
  return ["sh", "bash", "shell"].includes(language ?? "") && words.includes(RUNNABLE_MARKER);
}

/** The text outside fenced code blocks (links in code are not links). */
export function proseOf(markdown: string): string {
  const lines = markdown.split("\n");
  const blockLines = new Set<number>();
  for (const block of fencedBlocks("", markdown)) {
    const count = block.code === "" ? 0 : block.code.split("\n").length;
    for (let n = block.line - 1; n <= block.line + count; n++) blockLines.add(n);
  }
  return lines.map((line, n) => (blockLines.has(n) ? "" : line)).join("\n");
}

export interface Link {
  target: string;
  line: number;
}

/** Targets of Markdown links and images, and of HTML `src` / `href` attributes, outside code. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseOf(markdown)
    .split("\n")
    .forEach((text, index) => {
      // Inline code is not a link either.
      const line = text.replace(/`[^`]*`/g, "");
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        links.push({ target: match[1] ?? "", line: index + 1 });
      }
      for (const match of line.matchAll(/\s(?:src|href)="([^"]+)"/g)) {
        links.push({ target: match[1] ?? "", line: index + 1 });
      }
    });
  return links;
}

/** The anchors GitHub makes of a document's headings (`## The question API` → `the-question-api`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseOf(markdown).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? "")
      .toLowerCase()
      .replace(/<[^>]*>/g, "")
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
