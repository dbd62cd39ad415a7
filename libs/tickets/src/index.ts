export { MAX_UINT256, bytesToBigInt, bytesToHex, hexToBytes, keccak256, uint256Bytes } from './bytes';
export {
  SECP256K1_N,
  addressOfPrivateKey,
  addressOfPublicKey,
  ethSignedMessageHash,
  parseSignature,
  recoverEthSigner,
  signEthMessage,
  type SignatureParts,
} from './eth-signature';
export {
  createSignatureVerifier,
  type SignatureBackend,
  type SignatureVerifier,
  type SignatureVerifierOptions,
} from './signature-verifier';
export {
  computeRecipientRandHash,
  computeTicketHash,
  ticketAuxData,
  type TicketHashFields,
} from './ticket-hash';
export { buildWinningTicket, type BuildTicketInput } from './ticket-builder';
export { checkWinningTicket, isWinningTicket, type TicketCheckResult } from './winning-ticket-check';
