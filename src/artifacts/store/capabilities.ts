/**
 * What the store declares it can do with a stored result (the
 * `capabilities` every artifact answer carries), and the gate that holds a
 * request to it: a read, aggregate or download asking for something not
 * declared is refused with UNSUPPORTED_CAPABILITY, naming the capability,
 * before any statement is built or any byte is read.
 */
import { SluiceError } from '../../errors.ts';
import { DOWNLOAD_FORMATS, FILTER_OPS } from '../../vocabulary.ts';
import type { AggregateRequest, Capabilities, DownloadFormat, Filter, ReadRequest, SortKey } from '../types.ts';

/** Every store today reads its parts with DuckDB, which does all of it. */
export const STORE_CAPABILITIES: Capabilities = {
  projection: true,
  filterOps: [...FILTER_OPS],
  sort: true,
  aggregate: true,
  formats: [...DOWNLOAD_FORMATS],
};

function unsupported(capability: string, message: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError('UNSUPPORTED_CAPABILITY', message, { capability, ...details });
}

function checkFilters(capabilities: Capabilities, filters: Filter[] | undefined): void {
  for (const filter of filters ?? []) {
    if (!(capabilities.filterOps as string[]).includes(filter.op)) {
      throw unsupported('filterOps', `Filter op "${filter.op}" is not supported; use one of ${capabilities.filterOps.join(', ')}.`, {
        op: filter.op,
        supported: [...capabilities.filterOps],
      });
    }
  }
}

function checkSort(capabilities: Capabilities, sort: SortKey[] | undefined): void {
  if ((sort ?? []).length > 0 && !capabilities.sort) throw unsupported('sort', 'This artifact storage cannot sort a stored result; read it unsorted.');
}

export function checkRead(capabilities: Capabilities, request: Pick<ReadRequest, 'columns' | 'filters' | 'sort'>): void {
  if (request.columns !== undefined && !capabilities.projection) {
    throw unsupported('projection', 'This artifact storage cannot choose columns of a stored result; read every column.');
  }
  checkFilters(capabilities, request.filters);
  checkSort(capabilities, request.sort);
}

export function checkAggregate(capabilities: Capabilities, request: Pick<AggregateRequest, 'filters' | 'sort'>): void {
  if (!capabilities.aggregate) throw unsupported('aggregate', 'This artifact storage cannot aggregate a stored result; read its rows instead.');
  checkFilters(capabilities, request.filters);
  checkSort(capabilities, request.sort);
}

export function checkFormat(capabilities: Capabilities, format: DownloadFormat): void {
  if (!capabilities.formats.includes(format)) {
    throw unsupported('formats', `This artifact storage cannot download "${format}"; use one of ${capabilities.formats.join(', ')}.`, { format });
  }
}
