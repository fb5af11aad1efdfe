/**
 * The fenced code blocks of one language in a section of a Markdown document, in order: what a
 * reader copies from it. `heading` is the section's title without its `#`s (`## 4. Use it` →
 * `4. Use it`); the section ends at the next heading of the same or a higher level. Tests run these
 * blocks as written, so a change of the documentation that breaks them fails.
 */
export function markdownBlocks(markdown: string, heading: string, language: string): string[] {
  // Headings are lines starting with #s outside fenced code (a shell comment is no heading).
  const lines = markdown.split('\n');
  let fenced = false;
  const levels = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    const hashes = fenced ? undefined : /^(#{1,6}) /.exec(line)?.[1];
    return hashes?.length ?? 0;
  });
  const start = lines.findIndex((line, i) => (levels[i] ?? 0) > 0 && line.replace(/^#+ /, '') === heading);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = levels[start] ?? 1;
  const after = levels.findIndex((l, i) => i > start && l > 0 && l <= level);
  const section = lines.slice(start + 1, after < 0 ? undefined : after).join('\n');
  return [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => m[1] ?? '');
}
