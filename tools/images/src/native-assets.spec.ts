import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { addressOfPublicKey, bytesToHex, ethSignedMessageHash, hexToBytes } from '@sandbox/tickets';
import { addressOfPrivateKey, signEthMessage } from '@sandbox/tickets/testing';
import { IMAGE_CATALOG } from './catalog';
import { secp256k1BindingAssets } from './native-assets';

const dir = mkdtempSync(join(tmpdir(), 'native-assets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What a bundle does: a runtime require of the binding from /app/main.mjs.
const MAIN = `import { createRequire } from 'node:module';
const binding = createRequire(import.meta.url)('secp256k1/bindings');
const [sig, digest] = process.argv.slice(2).map((hex) => Uint8Array.from(Buffer.from(hex, 'hex')));
const publicKey = binding.ecdsaRecover(sig.subarray(0, 64), sig[64] - 27, digest, false);
process.stdout.write(Buffer.from(publicKey).toString('hex'));
`;

describe('secp256k1BindingAssets', () => {
  it('is shipped with the two images that check ticket signatures', () => {
    expect(IMAGE_CATALOG['redemption-handoff']?.assets).toBe(secp256k1BindingAssets);
    expect(IMAGE_CATALOG['redeemer-sim']?.assets).toBe(secp256k1BindingAssets);
  });

  it('lays out a binding that loads and recovers a signer from where the bundle requires it', async () => {
    for (const asset of await secp256k1BindingAssets()) {
      const target = join(dir, asset.path);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(asset.source ?? '', target);
    }
    writeFileSync(join(dir, 'app', 'main.mjs'), MAIN);
    const key = hexToBytes(`0x${'00'.repeat(31)}05`);
    const message = new Uint8Array(32).fill(7);
    const sig = signEthMessage(message, key).slice(2);
    const digest = bytesToHex(ethSignedMessageHash(message)).slice(2);
    const publicKey = execFileSync(process.execPath, [join(dir, 'app', 'main.mjs'), sig, digest], {
      cwd: dir,
      env: {},
    }).toString();
    expect(addressOfPublicKey(hexToBytes(publicKey))).toBe(addressOfPrivateKey(key));
  });
});
