/**
 * Checks a filter value against the column it is compared with, before it is
 * bound: a caller who sends "abc" for an integer column gets a clear
 * VALIDATION_ERROR naming the column, not a database conversion error.
 */
import { SluiceError } from '../errors.ts';
import type { PlannedColumn } from '../export/column-plan.ts';
import type { BoundValue } from './read-sql.ts';

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const TEMPORAL = /^-?\d{4,}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

function invalid(column: PlannedColumn, expected: string): SluiceError {
  return new SluiceError('VALIDATION_ERROR', `Filter value for "${column.name}" (${column.type}) must be ${expected}.`, {
    column: column.name,
  });
}

export function checkFilterValue(column: PlannedColumn, value: unknown): BoundValue {
  switch (column.storage) {
    case 'bool':
      if (typeof value !== 'boolean') throw invalid(column, 'true or false');
      return value;
    case 'int':
    case 'int8': {
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
      if (typeof text !== 'string' || !INTEGER.test(text)) throw invalid(column, 'an integer (a string for int8 beyond 2^53)');
      return text;
    }
    case 'float':
    case 'decimal':
    case 'numeric_text': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      const special = column.storage === 'float' && ['NaN', 'Infinity', '-Infinity'].includes(text as string);
      if (typeof text !== 'string' || !(NUMBER.test(text) || special)) throw invalid(column, 'a number or a decimal string');
      return text;
    }
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      if (typeof value !== 'string' || !(TEMPORAL.test(value) || /^-?infinity$/.test(value))) {
        throw invalid(column, 'an ISO 8601 date or timestamp string');
      }
      return value;
    default:
      if (typeof value !== 'string') throw invalid(column, 'a string');
      return value;
  }
}
