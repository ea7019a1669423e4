/**
 * PDF -> text in reading order, one block per page, pages separated by a horizontal rule, with
 * pdf.js (legacy build, which runs in Node). Lines come from the text items' end-of-line marks and
 * vertical positions; a page with no text layer gives nothing (no OCR).
 */
import { withoutControls } from '../core/controls.js';
import { AUTHOR_MAX, cutAtWord, TITLE_MAX } from '../core/text.js';
import { escapeLines } from '../core/escapes.js';

interface TextItem {
  str: string;
  hasEOL?: boolean;
  transform?: number[];
}

export interface PdfText {
  title?: string;
  author?: string;
  content: string;
  pages: number;
}

/**
 * Whether a rejection is one of pdf.js's own exceptions (FormatError, XRefEntryException,
 * ParserEOFException, ...): they share a prototype made in pdf.js's `BaseExceptionClosure`, whose
 * stack they show.
 */
const isPdfJsException = (reason: unknown): boolean =>
  reason instanceof Error && typeof reason.stack === 'string' && reason.stack.includes('at BaseExceptionClosure');

let guarded = false;

/**
 * pdf.js (4.9) leaves some promises of its in-process worker without a handler when a file is
 * broken in certain ways (two pages' dictionaries damaged, say), and Node ends a process, or a
 * reader thread, on an unhandled rejection: one PDF from any origin would stop the server reading
 * pages on its serving thread (WEBSEARCH_READER_THREADS=0). pdfToText answers such a file all the
 * same (its text or its error), so those stray rejections are let go; any other unhandled
 * rejection still ends the process, as Node's default does.
 */
function guardStrayRejections(): void {
  if (guarded) return;
  guarded = true;
  process.on('unhandledRejection', (reason) => {
    if (isPdfJsException(reason)) return;
    throw reason;
  });
}

/**
 * A word a justified line broke at its end (`informa-` then `tion`) on one line again, its hyphen
 * kept (`informa-tion`): the index also takes a hyphenated word joined (`information`), and a
 * compound broken at its own hyphen (`well-` then `known`) stays as written. Split over two lines,
 * neither half was a word of the page.
 */
export const joinHyphenated = (text: string) => text.replace(/(\p{L})-\n(?=\p{Ll})/gu, '$1-');

export async function pdfToText(data: Uint8Array, maxPages = 500): Promise<PdfText> {
  guardStrayRejections();
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= Math.min(doc.numPages, maxPages); n++) {
      const page = await doc.getPage(n);
      const text = await page.getTextContent();
      let line = '';
      let lastY: number | undefined;
      const lines: string[] = [];
      for (const raw of text.items as TextItem[]) {
        if (typeof raw.str !== 'string') continue;
        const y = raw.transform?.[5];
        if (lastY !== undefined && y !== undefined && Math.abs(y - lastY) > 2 && line.trim()) {
          lines.push(line.trim());
          line = '';
        }
        line += raw.str;
        if (raw.hasEOL) {
          lines.push(line.trim());
          line = '';
        }
        if (y !== undefined) lastY = y;
      }
      if (line.trim()) lines.push(line.trim());
      // Blank lines between paragraphs survive as empty strings; runs of them fold into one.
      // Text as markdown reads it as text (a line `1. Introduction` is no list, `<b>` no tag): `escapeLines`.
      pages.push(escapeLines(joinHyphenated(lines.join('\n')).replace(/\n{3,}/g, '\n\n').trim()));
      page.cleanup();
    }
    const info = ((await doc.getMetadata()).info ?? {}) as { Title?: string; Author?: string };
    const out: PdfText = { content: withoutControls(pages.filter(Boolean).join('\n\n---\n\n')), pages: doc.numPages };
    const title = withoutControls(info.Title ?? '').trim();
    const author = withoutControls(info.Author ?? '').trim();
    if (title) out.title = cutAtWord(title, TITLE_MAX);
    if (author) out.author = cutAtWord(author, AUTHOR_MAX);
    return out;
  } finally {
    await doc.destroy();
  }
}
