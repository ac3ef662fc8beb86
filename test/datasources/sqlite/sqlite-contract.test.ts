/**
 * The driver contract suite on SQLite: a file built in a temp dir with the
 * runtime's own SQLite library, opened by the driver as the server opens
 * it (read-only, every statement in a statement process).
 */
import { testDriverContract } from '../driver-contract.ts';
import { sqliteContractFixture } from './sqlite-contract-fixture.ts';
import { SqliteTestFile } from './sqlite-test-file.ts';
import { sqliteUnderTest } from './sqlite-under-test.ts';

testDriverContract('sqlite', sqliteContractFixture, () => sqliteUnderTest(new SqliteTestFile()));
