// A run's Sigstore bundle checked by Sigstore's own verifier (@sigstore/verify), offline:
// node verify-bundle.js BUNDLE PUBLIC.pem [--any-hint | --defaults | --log-default]
// The trusted root is empty (no Fulcio, no Rekor, no timestamp authority) and the only key is the
// given one, named by the DSSE key id computed here from the PEM; no transparency-log entry and no
// timestamp is required. --any-hint: the key is offered whatever the bundle's hint names, so that
// only the signature decides. --defaults: the Verifier's default thresholds (one transparency-log
// entry, one timestamp), to show what it asks of a keyed bundle by default; --log-default: those
// but the timestamp waived.
// Prints "verified KEYID MEDIATYPE" and exits 0, or "refused CODE: MESSAGE" and exits 1.
'use strict';
const fs = require('fs');
const crypto = require('crypto');
const { bundleFromJSON } = require('@sigstore/bundle');
const { Verifier, toSignedEntity, toTrustMaterial } = require('@sigstore/verify');

const [bundlePath, pemPath, mode] = process.argv.slice(2);
const key = crypto.createPublicKey(fs.readFileSync(pemPath));
const der = key.export({ type: 'spki', format: 'der' });
// The DSSE key id as docs/verify.md gives it (securesystemslib 0.28 and later), from the raw key.
const raw = key.export({ format: 'jwk' }).x;
const hex = Buffer.from(raw, 'base64url').toString('hex');
const keyid = crypto.createHash('sha256')
  .update(`{"keytype":"ed25519","keyval":{"public":"${hex}"},"scheme":"ed25519"}`).digest('hex');

const root = { certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [] };
const keys = mode === '--any-hint'
  ? () => ({ publicKey: key, validFor: () => true })
  : { [keyid]: { rawBytes: der } };
const trust = toTrustMaterial(root, keys);
const thresholds = { '--defaults': {}, '--log-default': { timestampThreshold: 0 } }[mode] ||
  { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 };
const verifier = new Verifier(trust, thresholds);
try {
  const bundle = bundleFromJSON(JSON.parse(fs.readFileSync(bundlePath, 'utf8')));
  const signer = verifier.verify(toSignedEntity(bundle));
  if (!signer.key.equals(key)) throw new Error('verified with a key other than the one given');
  console.log(`verified ${keyid} ${bundle.mediaType}`);
} catch (e) {
  console.log(`refused ${e.code || e.name}: ${e.message}`);
  process.exit(1);
}
