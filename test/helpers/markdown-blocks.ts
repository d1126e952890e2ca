/** A fenced block of a markdown page: the heading it is under, its language, its text (a list item's indent left out). */
export interface FencedBlock {
  /** `<heading> <n>`: the n-th block under that heading (its text without the `#`s), which names it in a test's lists. */
  id: string;
  heading: string;
  lang: string;
  text: string;
}

/** The fenced blocks of `markdown`, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const counts = new Map<string, number>();
  const lines = markdown.split("\n");
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, "");
    const open = /^( *)```(\w*)$/.exec(line);
    if (!open) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    for (i++; i < lines.length && !/^ *```$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    const n = (counts.get(heading) ?? 0) + 1;
    counts.set(heading, n);
    blocks.push({ id: `${heading} ${n}`, heading, lang: open[2]!, text: body.join("\n") });
  }
  return blocks;
}

/** A shell session as a page shows it: each `$ ` line's command and the lines it printed. */
export function transcript(text: string): { command: string; output: string[] }[] {
  const steps: { command: string; output: string[] }[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), output: [] });
    else if (steps.length > 0) steps.at(-1)!.output.push(line);
  }
  for (const step of steps) while (step.output.at(-1) === "") step.output.pop();
  return steps;
}
