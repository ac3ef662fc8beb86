/**
 * The datasource driver contract (src/datasources/driver.ts) as one suite
 * that every engine runs, as the byte stores run byte-store-contract.ts.
 * An engine's test file gives the driver's two halves, a privileged
 * connection and its fixture (driver-fixture.ts); the suite asks only the
 * contract: values reach the Parquet parts in the contract's encoding,
 * caps cut at exact rows, a cancel stops the engine, the read-only check
 * and the engine's own boundary refuse writes, errors carry the contract's
 * codes, the dialect's SQL runs, and the catalog answers. What an engine
 * declares it cannot do is skipped with the capability named.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { ContractExports } from './contract-export.ts';
import { catalogCases } from './contract-catalog.ts';
import { dialectCases } from './contract-dialect.ts';
import { capCases, valueCases } from './contract-results.ts';
import { stopCases } from './contract-stops.ts';
import { statementCases } from './contract-statements.ts';
import type { DriverFixture, DriverUnderTest } from './driver-fixture.ts';

/** What each group of cases is handed. `under` is set once the suite's beforeAll ran. */
export interface ContractContext {
  name: string;
  fixture: DriverFixture;
  under: DriverUnderTest;
  exports: ContractExports;
  /** The two ways a statement reaches the engine: as sent, and with a bound parameter (a different read path on some engines). */
  paths: { label: string; bind(sql: string): { sql: string; params: unknown[] } }[];
}

/**
 * `setup` runs when the suite is collected, not in a hook: a driver
 * declares its capabilities when it is opened (the registry opens drivers
 * synchronously too), and which cases run depends on them. Nothing may
 * connect before the suite's beforeAll asks it to.
 */
export function testDriverContract(name: string, fixture: DriverFixture, setup: () => DriverUnderTest): void {
  describe(`driver contract: ${name}`, () => {
    const under = setup();
    const context: ContractContext = {
      name,
      fixture,
      under,
      exports: new ContractExports(),
      paths: [
        { label: 'as sent', bind: (sql) => ({ sql, params: [] }) },
        { label: 'with a bound parameter', bind: fixture.bindOne },
      ],
    };

    beforeAll(async () => {
      await context.exports.open();
      for (const statement of [...fixture.drop, ...fixture.create]) await under.admin(statement);
    });
    afterAll(async () => {
      try {
        for (const statement of fixture.drop) await under.admin(statement);
      } finally {
        context.exports.close();
        await under.close();
      }
    });

    describe('values', () => valueCases(context));
    describe('caps at exact rows', () => capCases(context));
    describe('stopping a running statement', () => stopCases(context));
    describe('statements and errors', () => statementCases(context));
    describe('SQL dialect', () => dialectCases(context));
    describe('catalog, health and capabilities', () => catalogCases(context));
  });
}
