import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, PDFName, type PDFObject } from 'pdf-lib';

/**
 * The text a PDF's pages draw, line by line: each page's content streams are loaded back
 * with pdf-lib, inflated, and the hex strings of their text operators (`<...> Tj`, what
 * pdf-lib writes with the standard fonts) decoded as WinAnsi (Latin-1 for these characters).
 */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes);
  const lines: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.get(PDFName.of('Contents'));
    const refs: PDFObject[] = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
    for (const ref of refs) {
      const stream = doc.context.lookup(ref);
      if (!(stream instanceof PDFRawStream)) continue;
      const operators = Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1');
      for (const match of operators.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) lines.push(Buffer.from(match[1], 'hex').toString('latin1'));
    }
  }
  return lines.join('\n');
}
