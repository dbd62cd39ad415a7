import { generateKeyPairSync } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandRunner } from '@sandbox/sandbox-local';
import { runCommand } from '@sandbox/sandbox-local';

/** Files of the harness's throwaway PKI, all inside one temporary directory. */
export interface HarnessPki {
  caCert: string;
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  /** Signs service-account tokens (kube-apiserver `--service-account-signing-key-file`). */
  serviceAccountKey: string;
  /** Verifies them (`--service-account-key-file`). */
  serviceAccountPublicKey: string;
}

/** The user the admin client certificate names; `system:masters` makes it a cluster admin. */
export const ADMIN_USER = 'kube-harness-admin';

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
// Two days: long enough for any test run, short enough that a leaked key is worthless.
const DAYS = ['-days', '2'];

/**
 * Creates a CA, a serving certificate for 127.0.0.1 and localhost, an admin client certificate in
 * `system:masters`, and an EC key pair for service-account tokens. Certificates come from the
 * `openssl` CLI (node:crypto cannot issue X.509 certificates); the token key from node:crypto.
 */
export async function createHarnessPki(dir: string, run: CommandRunner = runCommand): Promise<HarnessPki> {
  const file = (name: string): string => join(dir, name);
  const pki: HarnessPki = {
    caCert: file('ca.crt'),
    servingCert: file('apiserver.crt'),
    servingKey: file('apiserver.key'),
    adminCert: file('admin.crt'),
    adminKey: file('admin.key'),
    serviceAccountKey: file('sa.key'),
    serviceAccountPublicKey: file('sa.pub'),
  };
  const caKey = file('ca.key');
  await run('openssl', [
    ...['req', '-x509', ...EC_KEY, ...DAYS, '-keyout', caKey, '-out', pki.caCert],
    ...['-subj', '/CN=kube-harness-ca', '-addext', 'basicConstraints=critical,CA:TRUE'],
    ...['-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
  ]);
  const issue = (key: string, cert: string, subject: string, extensions: string[]): Promise<unknown> =>
    run('openssl', [
      ...['req', '-x509', ...EC_KEY, ...DAYS, '-keyout', key, '-out', cert, '-subj', subject],
      ...['-CA', pki.caCert, '-CAkey', caKey, '-addext', 'basicConstraints=critical,CA:FALSE'],
      ...extensions.flatMap((extension) => ['-addext', extension]),
    ]);
  await issue(pki.servingKey, pki.servingCert, '/CN=kube-apiserver', [
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
    'extendedKeyUsage=serverAuth',
  ]);
  await issue(pki.adminKey, pki.adminCert, `/O=system:masters/CN=${ADMIN_USER}`, [
    'extendedKeyUsage=clientAuth',
  ]);
  const tokenKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(pki.serviceAccountKey, tokenKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  await writeFile(pki.serviceAccountPublicKey, tokenKeys.publicKey.export({ type: 'spki', format: 'pem' }));
  return pki;
}

/** Reads a PEM file as base64, the form kubeconfig `*-data` fields take. */
export async function pemData(path: string): Promise<string> {
  return (await readFile(path)).toString('base64');
}
