import { randomInt } from 'node:crypto';

/**
 * A name prefix and an instance subnet for one test run: two engineers running the same root test at
 * once on one machine must not share namespaces, chains or addresses. `base` is the test file's own two
 * letters; two random letters follow, and the /24 is drawn from 10.230.0.0/16.
 */
export function uniqueHost(base: string): { prefix: string; subnet: string } {
  const letter = () => String.fromCharCode(97 + randomInt(26));
  return { prefix: `${base}${letter()}${letter()}`, subnet: `10.230.${randomInt(256)}.0/24` };
}
