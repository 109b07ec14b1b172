/**
 * The packages the token lives in, with the ids of the wrapped SDK's current DAR set (wrapped-api.md §2.3, the
 * `expected_packages.head-derived.json` list). Every sandbox participant has them uploaded and vetted from the
 * start, as every participant of the real networks does; template ids in responses use these package ids.
 */
import type { Package } from '../ledger/model.js';

function pkg(name: string, version: string, id: string): Package {
  return { id, name, version };
}

export const PKG = {
  holdingV1: pkg(
    'splice-api-token-holding-v1',
    '1.0.0',
    '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b',
  ),
  transferInstructionV1: pkg(
    'splice-api-token-transfer-instruction-v1',
    '1.0.0',
    '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281',
  ),
  metadataV1: pkg(
    'splice-api-token-metadata-v1',
    '1.0.0',
    '4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f',
  ),
  allocationV1: pkg(
    'splice-api-token-allocation-v1',
    '1.0.0',
    '93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d',
  ),
  allocationInstructionV1: pkg(
    'splice-api-token-allocation-instruction-v1',
    '1.0.0',
    '275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520',
  ),
  allocationRequestV1: pkg(
    'splice-api-token-allocation-request-v1',
    '1.0.0',
    '6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193',
  ),
  burnMintV1: pkg(
    'splice-api-token-burn-mint-v1',
    '1.0.0',
    '9cc2cbc838ef38dc2c7f34014c9c452bcf71b8e2a4f939235fc0b5d0924b185e',
  ),
  featuredAppV1: pkg(
    'splice-api-featured-app-v1',
    '1.0.0',
    '7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda',
  ),
  registry: pkg(
    'utility-registry-v0',
    '0.6.0',
    'a236e8e22a3b5f199e37d5554e82bafd2df688f901de02b00be3964bdfa8c1ab',
  ),
  registryApp: pkg(
    'utility-registry-app-v0',
    '0.7.0',
    '7a75ef6e69f69395a4e60919e228528bb8f3881150ccfde3f31bcc73864b18ab',
  ),
  registryHolding: pkg(
    'utility-registry-holding-v0',
    '0.2.1',
    '8107899ac4723ce986bf7d27416534e576e54b92161e46150a595fb78ff3d3a1',
  ),
  registryOperator: pkg(
    'utility-registry-operator-v0',
    '0.0.2',
    '28bc75dc3ef75fa9d531133ac2e93020128b7c7967f1d8bc91b1b6d888ff31f2',
  ),
  credential: pkg(
    'utility-credential-v0',
    '0.1.0',
    '5a29ead611a0abd5f5b3fc3caf7d0f67c0ff802032ab6d392824aa9060e56d70',
  ),
  credentialApp: pkg(
    'utility-credential-app-v0',
    '0.4.1',
    'e9a3b7df354dfd2f15c7d015328c34256308c90ba96f86f185dad58ffca8299b',
  ),
  commercials: pkg(
    'utility-commercials-v0',
    '0.4.1',
    'fa5b1cc5c8368dff7c2e6a74aa2af9d520d755e2a508f44acd17343326e41839',
  ),
  settlementApp: pkg(
    'utility-settlement-app-v1',
    '1.2.0',
    'f169e1d84c476cb1321eff8ac2aebc9ce1c6b20790db5e788ee4ca87256a0639',
  ),
  collateralApp: pkg(
    'utility-collateral-app-v1',
    '1.0.0',
    '6bb2a795fd783646676705085d6548175783a5e63dd9084a6792cb25b32769d0',
  ),
  version: pkg(
    'utility-version-v0',
    '0.0.1',
    '42e902610f593c6fb5516d7a7401ad0892dc44507a777ace0a468a5f6c9d3381',
  ),
  cbtc: pkg('cbtc', '1.2.0', 'f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313'),
  amulet: pkg('splice-amulet', '0.1.17', '6c5802f86709a0ad4784af81f0bab40f3070b2f58128d8843da1e1784c147802'),
  util: pkg('splice-util', '0.1.5', '5a58024e2cc488ca9e0c952ec7ef41da3a1ed0a78ba23bacd819e5b30afb5546'),
} as const;

/** every package a sandbox participant has from the start */
export const TOKEN_PACKAGES: Package[] = Object.values(PKG);
