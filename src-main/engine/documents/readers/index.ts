import type { DocumentReader } from '../types.ts';
import { csvReader } from './csv.ts';
import { docxReader } from './docx.ts';
import { jsonReader } from './json.ts';
import { close as closeOcr, ocrPdfPages, ocrReader } from './ocr.ts';
import { createPdfReader } from './pdf.ts';
import { textReader } from './text.ts';
import { xlsxReader } from './xlsx.ts';

/** Every reader of this build, most specific first: scanned PDF pages and images go to OCR (readers/ocr.ts). */
export function documentReaders(): DocumentReader[] {
  return [
    createPdfReader({ ocrPages: ocrPdfPages }),
    docxReader,
    xlsxReader,
    jsonReader,
    csvReader,
    textReader,
    ocrReader,
  ];
}

/** Stops what the readers keep running between documents (the OCR worker). */
export function closeReaders(): Promise<void> {
  return closeOcr();
}
