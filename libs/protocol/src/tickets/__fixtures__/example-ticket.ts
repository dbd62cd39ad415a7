/**
 * A real winner, computed independently with @noble/curves and @noble/hashes: sender key
 * 0x4c0883a6…362318 (a well-known test key), ticket hash = keccak256 of the packed fields, `sig` over the
 * eth-signed-message hash, keccak256(sig ‖ recipientRand) < winProb. Test data for specs only: not
 * exported from the library.
 */
export const exampleTicket = Object.freeze({
  ticketHash: '0x132744bc4f8d940a4917e318ff28fa2d9555b7a724797f08c79e01e5f12d78c0',
  recipient: '0x1de3d712f5d3103ad50e22dc1f4d3ff1559d5115',
  sender: '0x2c7536e3605d9c16a7a3d7b1898e529396a65c23',
  faceValue: '1000000000000000',
  winProb: '57896044618658097711785492504343953926634992332820282019728792003956564819967',
  senderNonce: '7',
  recipientRandHash: '0x8dda2b7ecd98e5fad93e4f0a07afbc42cf005aef38d16b7fea31a63882c287fc',
  creationRound: '3520',
  creationRoundBlockHash: '0x20b53acf0daefc8c6ad68c861fb3b543ca541abd101abc1edfcbf6606b838ef4',
  paramsExpirationBlock: '21000040',
  sig: '0x4bab4c4e487c605f93ca24367f2db04bab7bcf1bffb1265dd53fc46085331a0c18c04ba5a7131776cc9ffc95187fe13b73f6b18bb1c5cfd65377a1d6dc50f9961b',
  recipientRand: '0xef9bb082521b7bee3af84131ece48e79a28990c120850e6ea0c5df07dc539c95',
});
