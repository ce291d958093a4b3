// pdf-lib is loaded by the first agreement rendered, not at the service's start (its memory).
import type { Color, PDFDocument, PDFFont, PDFPage } from 'pdf-lib';

/** What the rental agreement states: the booking's snapshot, the parties and the business's terms. */
export interface AgreementContent {
  agreementId: string;
  version: number;
  businessName: string;
  booking: {
    id: string;
    startAt: Date;
    endAt: Date;
    days: number;
    currency: string;
    dailyRateCents: number;
    rentalCents: number;
    unlimitedMiles: boolean;
    unlimitedMilesFeeCents: number;
    deliveryFeeCents: number;
    depositCents: number;
    includedMiles: number | null;
    extraMileFeeCents: number;
    totalCents: number;
  };
  customer: { name: string; email: string | null; phone: string | null };
  vehicle: { id: string; name: string; make: string | null; model: string | null; year: number | null };
  terms: string;
  issuedAt: Date;
}

/** Cents as the document prints them: "1,234.56 USD" (integer arithmetic, no float rounding). */
export function formatMoney(cents: number, currency: string): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  return `${sign}${units}.${String(abs % 100).padStart(2, '0')} ${currency.toUpperCase()}`;
}

const PAGE = { width: 612, height: 792, margin: 56 }; // US Letter, 0.78 in margins
const SIZE = { title: 18, heading: 12, body: 10 };
const LEADING = 1.4;

/** Lays text out top to bottom, wrapping words and starting new pages as it goes. */
class Layout {
  private page: PDFPage;
  private y: number;
  private readonly supported: Set<number>;

  constructor(private readonly doc: PDFDocument, private readonly font: PDFFont, private readonly bold: PDFFont, private readonly ink: Color) {
    this.page = doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - PAGE.margin;
    const boldSet = new Set(bold.getCharacterSet());
    this.supported = new Set(font.getCharacterSet().filter((cp) => boldSet.has(cp)));
  }

  /** The standard fonts encode WinAnsi only: anything else prints as '?', never an exception. */
  private printable(text: string): string {
    return Array.from(text.replace(/\t/g, ' '), (ch) => (this.supported.has(ch.codePointAt(0)!) ? ch : '?')).join('');
  }

  private wrap(text: string, font: PDFFont, size: number): string[] {
    const width = PAGE.width - 2 * PAGE.margin;
    const lines: string[] = [];
    for (const paragraph of text.split(/\r?\n/)) {
      let line = '';
      for (const word of paragraph.split(/ +/)) {
        const candidate = line ? `${line} ${word}` : word;
        if (font.widthOfTextAtSize(candidate, size) <= width) {
          line = candidate;
          continue;
        }
        if (line) lines.push(line);
        // A word wider than the line (a long id or address) is cut where it must be.
        let rest = word;
        while (font.widthOfTextAtSize(rest, size) > width) {
          let cut = rest.length - 1;
          while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > width) cut--;
          lines.push(rest.slice(0, cut));
          rest = rest.slice(cut);
        }
        line = rest;
      }
      lines.push(line);
    }
    return lines;
  }

  write(text: string, options: { size?: number; bold?: boolean; gapAfter?: number } = {}): void {
    const size = options.size ?? SIZE.body;
    const font = options.bold ? this.bold : this.font;
    for (const line of this.wrap(this.printable(text), font, size)) {
      if (this.y - size < PAGE.margin) {
        this.page = this.doc.addPage([PAGE.width, PAGE.height]);
        this.y = PAGE.height - PAGE.margin;
      }
      this.y -= size;
      if (line) this.page.drawText(line, { x: PAGE.margin, y: this.y, size, font, color: this.ink });
      this.y -= size * (LEADING - 1);
    }
    this.y -= options.gapAfter ?? 0;
  }
}

/**
 * The agreement as a PDF: the parties, the vehicle, the period, the price snapshot, the
 * deposit and mileage terms, then the business's terms. Every line a renter signs is here, so
 * the document's SHA-256 identifies exactly what they accepted.
 */
export async function renderAgreementPdf(content: AgreementContent): Promise<Buffer> {
  const { booking, customer, vehicle } = content;
  const money = (cents: number) => formatMoney(cents, booking.currency);
  const { PDFDocument, StandardFonts, rgb } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle(`Rental agreement ${content.agreementId} (version ${content.version})`);
  doc.setSubject(`Booking ${booking.id}`);
  doc.setAuthor(content.businessName);
  doc.setProducer('Rental platform API');
  doc.setCreator('Rental platform API');
  doc.setCreationDate(content.issuedAt);
  doc.setModificationDate(content.issuedAt);
  const layout = new Layout(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold), rgb(0.1, 0.1, 0.1));

  layout.write('Rental agreement', { size: SIZE.title, bold: true, gapAfter: 4 });
  layout.write(content.businessName, { size: SIZE.heading, gapAfter: 2 });
  layout.write(`Agreement ${content.agreementId}, version ${content.version}, issued ${content.issuedAt.toISOString()}`);
  layout.write(`Booking ${booking.id}`, { gapAfter: 10 });

  layout.write('Renter', { size: SIZE.heading, bold: true, gapAfter: 2 });
  layout.write(`Name: ${customer.name}`);
  if (customer.email) layout.write(`Email: ${customer.email}`);
  if (customer.phone) layout.write(`Phone: ${customer.phone}`);
  layout.write('', { gapAfter: 4 });

  layout.write('Vehicle', { size: SIZE.heading, bold: true, gapAfter: 2 });
  layout.write(`${vehicle.name} (${vehicle.id})`);
  const description = [vehicle.year, vehicle.make, vehicle.model].filter((part) => part !== null && part !== '').join(' ');
  if (description) layout.write(description);
  layout.write('', { gapAfter: 4 });

  layout.write('Rental period', { size: SIZE.heading, bold: true, gapAfter: 2 });
  layout.write(`From ${booking.startAt.toISOString()} to ${booking.endAt.toISOString()} (UTC), ${booking.days} day(s)`, { gapAfter: 10 });

  layout.write('Price', { size: SIZE.heading, bold: true, gapAfter: 2 });
  layout.write(`Daily rate: ${money(booking.dailyRateCents)} x ${booking.days} day(s) = ${money(booking.rentalCents)}`);
  if (booking.unlimitedMilesFeeCents > 0) layout.write(`Unlimited miles: ${money(booking.unlimitedMilesFeeCents)}`);
  if (booking.deliveryFeeCents > 0) layout.write(`Delivery: ${money(booking.deliveryFeeCents)}`);
  layout.write(`Total: ${money(booking.totalCents)}`, { bold: true });
  layout.write(`Security deposit (held, not charged): ${money(booking.depositCents)}`, { gapAfter: 10 });

  layout.write('Mileage', { size: SIZE.heading, bold: true, gapAfter: 2 });
  if (booking.unlimitedMiles || booking.includedMiles === null) layout.write('Unlimited miles: no mileage fee.', { gapAfter: 10 });
  else {
    layout.write(`Included miles: ${booking.includedMiles}`);
    layout.write(`Mileage fee beyond the included miles: ${money(booking.extraMileFeeCents)} per mile`, { gapAfter: 10 });
  }

  layout.write('Terms', { size: SIZE.heading, bold: true, gapAfter: 2 });
  for (const paragraph of content.terms.split(/\n\s*\n/)) layout.write(paragraph.trim(), { gapAfter: 6 });

  layout.write('Signature', { size: SIZE.heading, bold: true, gapAfter: 2 });
  layout.write(
    "The renter signs this agreement electronically through the signing link sent to them. The signer's name, IP address and user agent, the time, and this document's SHA-256 are recorded with the signature.",
  );
  return Buffer.from(await doc.save());
}
