/**
 * The MySQL/MariaDB driver's pieces that need no server: values bound into
 * the statement as literals that can never end their quotes, the engine's
 * error numbers in contract codes (no URL or password in any message),
 * table names split with the URL's database as the default, and the
 * privileges a start-up warning names; and the kind as the registry opens it.
 */
import { describe, expect, it } from 'vitest';
import { bindParams } from '../../../src/datasources/mysql/export/bind-params.ts';
import { mysqlDialect } from '../../../src/datasources/mysql/mysql-dialect.ts';
import { mysqlError, toMysqlSluiceError } from '../../../src/datasources/mysql/mysql-errors.ts';
import { mysqlTarget } from '../../../src/datasources/mysql/mysql-url.ts';
import { privilegesBeyondSelect } from '../../../src/datasources/mysql/privileges.ts';
import { lex } from '../../../src/datasources/mysql/sql-lexer.ts';
import { kindOf } from '../../../src/datasources/drivers.ts';
import { DatasourceRegistry } from '../../../src/datasources/registry.ts';
import { SluiceError } from '../../../src/errors.ts';
import { quietLogger } from '../../../src/logger.ts';

describe('binding values into MySQL text', () => {
  it('puts ? in order and :n by number, leaving marks in strings, names and comments alone', () => {
    expect(bindParams("SELECT '?', `:1`, ? /* ? */, ?", ['a', 2])).toBe("SELECT '?', `:1`,  'a'  /* ? */,  2 ");
    expect(bindParams('SELECT :2, :1, :2', ['x', null])).toBe('SELECT  NULL ,  \'x\' ,  NULL ');
    expect(bindParams('SELECT 1', [])).toBe('SELECT 1');
  });

  it('quotes hostile strings so they stay one string literal', () => {
    for (const value of ["' OR 1=1 -- ", "\\' ; DELETE FROM t; -- ", "a\\", "\0'", "'/*!", '"']) {
      const bound = bindParams('SELECT ?', [value]);
      const strings = lex(bound).tokens.filter((t) => t.kind === 'string');
      expect(strings, value).toHaveLength(1);
      expect(lex(bound).tokens.filter((t) => t.kind !== 'space').map((t) => t.kind)).toEqual(['word', 'string']);
    }
  });

  it('writes numbers and booleans as literals, a negative one in parentheses, and refuses what SQL cannot hold', () => {
    expect(bindParams('SELECT 1 -?, ?, ?', [-5, true, 1.5])).toBe('SELECT 1 - (-5) ,  TRUE ,  1.5 ');
    expect(() => bindParams('SELECT ?', [Number.NaN])).toThrow(SluiceError);
    expect(() => bindParams('SELECT ?', [{ a: 1 }])).toThrow(/not a string, number, boolean or null/);
    expect(() => bindParams('SELECT ?, ?', [1])).toThrow(/parameter 2/);
  });
});

describe('MySQL errors in contract codes', () => {
  const server = (errno: number, message: string, code = 'ER_X') => Object.assign(new Error(message), { errno, code, sqlState: 'HY000', sqlMessage: message });

  it('maps the engine numbers that mean read-only, timeout, cancel and syntax', () => {
    expect(mysqlError(server(1792, 'Cannot execute statement in a READ ONLY transaction'))?.code).toBe('READ_ONLY_VIOLATION');
    expect(mysqlError(server(1969, 'Query execution was interrupted (max_statement_time exceeded)'))?.code).toBe('QUERY_TIMEOUT');
    expect(mysqlError(server(3024, 'maximum statement execution time exceeded'))?.code).toBe('QUERY_TIMEOUT');
    expect(mysqlError(server(1317, 'Query execution was interrupted'))?.code).toBe('QUERY_CANCELLED');
    expect(mysqlError(server(1054, "Unknown column 'x' in 'field list'"))?.code).toBe('SQL_ERROR');
    const syntax = mysqlError(server(1064, "You have an error in your SQL syntax; check the manual near 'FRM t' at line 2"), 'SELECT *\nFROM x FRM t');
    expect(syntax?.details).toMatchObject({ errno: 1064, line: 2, position: 17 });
  });

  it('answers a server that cannot be reached with a retryable DATASOURCE_UNAVAILABLE that names no address', () => {
    const refused = toMysqlSluiceError(Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:3306'), { code: 'ECONNREFUSED', fatal: true }));
    expect(refused.code).toBe('DATASOURCE_UNAVAILABLE');
    expect(refused.status).toBe(503);
    expect(refused.details).toMatchObject({ retryable: true });
    expect(refused.message).not.toContain('10.1.2.3');
    const denied = toMysqlSluiceError(server(1045, "Access denied for user 'app'@'10.0.0.1' (using password: YES)"));
    expect(denied.code).toBe('DATASOURCE_UNAVAILABLE');
    expect(denied.message).not.toContain('app');
    expect(mysqlError(new Error('a fault of our own'))).toBeUndefined();
  });
});

describe('MySQL URLs and table names', () => {
  it('reads a URL into connection options, and the scheme into the dialect before the server answers', () => {
    const target = mysqlTarget('mariadb://app:p%40ss@db.internal:3307/shop?ssl=true');
    expect(target).toMatchObject({ database: 'shop', scheme: 'mariadb' });
    expect(target.options).toMatchObject({ host: 'db.internal', port: 3307, user: 'app', password: 'p@ss', database: 'shop', multipleStatements: false });
    expect(mysqlTarget('mysql://root@127.0.0.1/db').scheme).toBe('mysql');
  });

  it('splits table names with the URL database as the default schema', () => {
    const d = mysqlDialect('mariadb', 'shop');
    expect(d.splitTableName('orders')).toEqual(['shop', 'orders']);
    expect(d.splitTableName('sales.orders')).toEqual(['sales', 'orders']);
    expect(d.splitTableName('`we.ird`.`ta``ble`')).toEqual(['we.ird', 'ta`ble']);
    expect(() => mysqlDialect('mysql').splitTableName('orders')).toThrow(/database\.table/);
    expect(d.quoteIdentifier('a`b')).toBe('`a``b`');
  });
});

describe('start-up warnings about privileges', () => {
  it('names what a user holds beyond reading', () => {
    expect(privilegesBeyondSelect(['GRANT USAGE ON *.* TO `r`@`%`', 'GRANT SELECT, SHOW VIEW ON `shop`.* TO `r`@`%`'])).toEqual([]);
    expect(privilegesBeyondSelect(['GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION'])).toEqual(['ALL PRIVILEGES', 'GRANT OPTION']);
    expect(privilegesBeyondSelect(['GRANT SELECT, FILE ON *.* TO `r`@`%`', 'GRANT UPDATE (`a`) ON `s`.`t` TO `r`@`%`', 'GRANT `reader` TO `r`@`%`'])).toEqual(['FILE', 'UPDATE']);
  });
});

describe('the mysql kind in the registry', () => {
  it('is named by mysql:// and mariadb://, serves statements side by side, and speaks the URL scheme until it has asked the server', async () => {
    expect(kindOf('mysql://u@127.0.0.1:3306/db')).toBe('mysql');
    expect(kindOf('mariadb://u@127.0.0.1/db')).toBe('mysql');
    const registry = await DatasourceRegistry.open([{ id: 'shop', url: 'mariadb://u@127.0.0.1:1/shop' }], 3, quietLogger);
    try {
      const [shop] = registry.all();
      expect(shop).toMatchObject({ kind: 'mysql' });
      expect(shop!.driver.capabilities).toEqual({ cancel: true, engineReadOnly: true, concurrentStatements: true });
      expect(shop!.driver.dialect.name).toBe('mariadb');
      expect(shop!.driver.dialect.splitTableName('orders')).toEqual(['shop', 'orders']);
      // The registry answers the started driver's dialect, so the semantic compiler writes what this server speaks.
      expect(registry.dialectOf('shop').name).toBe('mariadb');
    } finally {
      await registry.close();
    }
  });
});
