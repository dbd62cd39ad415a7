export { MAX_UINT256, bytesToBigInt, bytesToHex, hexToBytes, keccak256, uint256Bytes } from './bytes';
export {
  SECP256K1_N,
  addressOfPublicKey,
  ethSignedMessageHash,
  parseSignature,
  recoverEthSigner,
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
export { checkWinningTicket, isWinningTicket, type TicketCheckResult } from './winning-ticket-check';
