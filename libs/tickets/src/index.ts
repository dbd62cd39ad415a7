export { MAX_UINT256, bytesToHex, hexToBytes, keccak256, uint256Bytes } from './bytes';
export {
  addressOfPublicKey,
  ethSignedMessageHash,
  recoverEthSigner,
  type SignatureParts,
} from './eth-signature';
export {
  createSignatureVerifier,
  type SignatureBackend,
  type SignatureVerifier,
  type SignatureVerifierOptions,
} from './signature-verifier';
export { computeRecipientRandHash, computeTicketHash, type TicketHashFields } from './ticket-hash';
export { checkWinningTicket, isWinningTicket, type TicketCheckResult } from './winning-ticket-check';
