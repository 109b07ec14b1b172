/**
 * The package lists the wrapped-token SDK's DAR check expects (wrapped-api.md §2.3, §8.20): published data, in
 * the SDK's own format (`{cbtc_lib_version, packages: {<package id>: {name, version}}}`).
 *
 * - `cbtc-lib-0.3.1`: the manifest the SDK shipped as `cbtc-dars/expected_packages.json` (DLC-link/cbtc-lib,
 *   removed from that repository on 2026-04-08); the wrapped-token package `cbtc` 1.1.1.
 * - `cbtc-lib-0.6.3`: derived from the `META-INF/MANIFEST.MF` of every DAR in DLC-link/cbtc-lib `cbtc-dars/dars/**`
 *   at its current release, the latest version per package name: what its current `dar_check` expects (`cbtc`
 *   1.2.0, with credentials and limits).
 *
 * Copies of both files are in test/fixtures/specs/wrapped/ (a test holds these lists equal to them).
 * `KNOWN_RELEASES` adds the older `cbtc` releases the SDK also shipped (1.0.0, 1.1.0), so that a report can name
 * the release a participant has instead of the one expected.
 */

export interface ExpectedPackageList {
  cbtc_lib_version: string;
  packages: Record<string, { name: string; version: string }>;
}

const CBTC_LIB_0_3_1: ExpectedPackageList = {
  cbtc_lib_version: '0.3.1',
  packages: {
    e0b1ae1cf5bb4bcff668df849c397d551065cfc0563a69c6b106a639f4f43b2c: { name: 'cbtc', version: '1.1.1' },
    '3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1': {
      name: 'splice-amulet',
      version: '0.1.14',
    },
    '7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda': {
      name: 'splice-api-featured-app-v1',
      version: '1.0.0',
    },
    '275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520': {
      name: 'splice-api-token-allocation-instruction-v1',
      version: '1.0.0',
    },
    '6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193': {
      name: 'splice-api-token-allocation-request-v1',
      version: '1.0.0',
    },
    '93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d': {
      name: 'splice-api-token-allocation-v1',
      version: '1.0.0',
    },
    '9cc2cbc838ef38dc2c7f34014c9c452bcf71b8e2a4f939235fc0b5d0924b185e': {
      name: 'splice-api-token-burn-mint-v1',
      version: '1.0.0',
    },
    '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b': {
      name: 'splice-api-token-holding-v1',
      version: '1.0.0',
    },
    '4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f': {
      name: 'splice-api-token-metadata-v1',
      version: '1.0.0',
    },
    '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281': {
      name: 'splice-api-token-transfer-instruction-v1',
      version: '1.0.0',
    },
    b7356fbb2cf8a3b22194d8c743c3c216d9c7527b257c8c38b257eb22942be358: {
      name: 'splice-util',
      version: '0.1.4',
    },
    '6bb2a795fd783646676705085d6548175783a5e63dd9084a6792cb25b32769d0': {
      name: 'utility-collateral-app-v1',
      version: '1.0.0',
    },
    '6c656fb4169c35ec4c3be8d134fc4bc9a93e11fb5c939ab5a7e7e7f345f1b5dc': {
      name: 'utility-commercials-v0',
      version: '0.2.2',
    },
    '512449f872b9770ca1b2aab52eafd1e382f09b987227dbd849635a9cfec78a5a': {
      name: 'utility-credential-app-v0',
      version: '0.2.4',
    },
    '77df4e7b980c12de438d7b052141a762215fae790d81f71179c8fb534beb68f7': {
      name: 'utility-credential-v0',
      version: '0.0.3',
    },
    '170929b11d5f0ed1385f890f42887c31ff7e289c0f4bc482aff193a7173d576c': {
      name: 'utility-registry-app-v0',
      version: '0.4.0',
    },
    dd3a9f2d51cc4c52d9ec2e1d7ff235298dcfb3afd1d50ab44328b1aaa9a18587: {
      name: 'utility-registry-holding-v0',
      version: '0.1.2',
    },
    '28bc75dc3ef75fa9d531133ac2e93020128b7c7967f1d8bc91b1b6d888ff31f2': {
      name: 'utility-registry-operator-v0',
      version: '0.0.2',
    },
    ed73d5b9ab717333f3dbd122de7be3156f8bf2614a67360c3dd61fc0135133fa: {
      name: 'utility-registry-v0',
      version: '0.4.0',
    },
    '34ab886ee88b045637ff416f558734309f5650fec81a603cb5db76bbd863b950': {
      name: 'utility-settlement-app-v1',
      version: '1.1.0',
    },
    '42e902610f593c6fb5516d7a7401ad0892dc44507a777ace0a468a5f6c9d3381': {
      name: 'utility-version-v0',
      version: '0.0.1',
    },
  },
};

const CBTC_LIB_0_6_3: ExpectedPackageList = {
  cbtc_lib_version: '0.6.3',
  packages: {
    f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313: { name: 'cbtc', version: '1.2.0' },
    '6c5802f86709a0ad4784af81f0bab40f3070b2f58128d8843da1e1784c147802': {
      name: 'splice-amulet',
      version: '0.1.17',
    },
    '7804375fe5e4c6d5afe067bd314c42fe0b7d005a1300019c73154dd939da4dda': {
      name: 'splice-api-featured-app-v1',
      version: '1.0.0',
    },
    '275064aacfe99cea72ee0c80563936129563776f67415ef9f13e4297eecbc520': {
      name: 'splice-api-token-allocation-instruction-v1',
      version: '1.0.0',
    },
    '6fe848530b2404017c4a12874c956ad7d5c8a419ee9b040f96b5c13172d2e193': {
      name: 'splice-api-token-allocation-request-v1',
      version: '1.0.0',
    },
    '93c942ae2b4c2ba674fb152fe38473c507bda4e82b4e4c5da55a552a9d8cce1d': {
      name: 'splice-api-token-allocation-v1',
      version: '1.0.0',
    },
    '9cc2cbc838ef38dc2c7f34014c9c452bcf71b8e2a4f939235fc0b5d0924b185e': {
      name: 'splice-api-token-burn-mint-v1',
      version: '1.0.0',
    },
    '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b': {
      name: 'splice-api-token-holding-v1',
      version: '1.0.0',
    },
    '4ded6b668cb3b64f7a88a30874cd41c75829f5e064b3fbbadf41ec7e8363354f': {
      name: 'splice-api-token-metadata-v1',
      version: '1.0.0',
    },
    '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281': {
      name: 'splice-api-token-transfer-instruction-v1',
      version: '1.0.0',
    },
    '5a58024e2cc488ca9e0c952ec7ef41da3a1ed0a78ba23bacd819e5b30afb5546': {
      name: 'splice-util',
      version: '0.1.5',
    },
    '6bb2a795fd783646676705085d6548175783a5e63dd9084a6792cb25b32769d0': {
      name: 'utility-collateral-app-v1',
      version: '1.0.0',
    },
    fa5b1cc5c8368dff7c2e6a74aa2af9d520d755e2a508f44acd17343326e41839: {
      name: 'utility-commercials-v0',
      version: '0.4.1',
    },
    e9a3b7df354dfd2f15c7d015328c34256308c90ba96f86f185dad58ffca8299b: {
      name: 'utility-credential-app-v0',
      version: '0.4.1',
    },
    '5a29ead611a0abd5f5b3fc3caf7d0f67c0ff802032ab6d392824aa9060e56d70': {
      name: 'utility-credential-v0',
      version: '0.1.0',
    },
    '7a75ef6e69f69395a4e60919e228528bb8f3881150ccfde3f31bcc73864b18ab': {
      name: 'utility-registry-app-v0',
      version: '0.7.0',
    },
    '8107899ac4723ce986bf7d27416534e576e54b92161e46150a595fb78ff3d3a1': {
      name: 'utility-registry-holding-v0',
      version: '0.2.1',
    },
    '28bc75dc3ef75fa9d531133ac2e93020128b7c7967f1d8bc91b1b6d888ff31f2': {
      name: 'utility-registry-operator-v0',
      version: '0.0.2',
    },
    a236e8e22a3b5f199e37d5554e82bafd2df688f901de02b00be3964bdfa8c1ab: {
      name: 'utility-registry-v0',
      version: '0.6.0',
    },
    f169e1d84c476cb1321eff8ac2aebc9ce1c6b20790db5e788ee4ca87256a0639: {
      name: 'utility-settlement-app-v1',
      version: '1.2.0',
    },
    '42e902610f593c6fb5516d7a7401ad0892dc44507a777ace0a468a5f6c9d3381': {
      name: 'utility-version-v0',
      version: '0.0.1',
    },
  },
};

/** The lists a playbook names with `expected: <name>`. */
export const EXPECTED_PACKAGE_LISTS: Readonly<Record<string, ExpectedPackageList>> = {
  'cbtc-lib-0.3.1': CBTC_LIB_0_3_1,
  'cbtc-lib-0.6.3': CBTC_LIB_0_6_3,
};

/** The list `token.dar-check` uses when none is named: the SDK's current one. */
export const DEFAULT_EXPECTED_LIST = 'cbtc-lib-0.6.3';

/** Every release of a package the SDK shipped, by package id (the lists above and the older `cbtc` DARs). */
export const KNOWN_RELEASES: Readonly<Record<string, { name: string; version: string }>> = {
  ...CBTC_LIB_0_3_1.packages,
  ...CBTC_LIB_0_6_3.packages,
  '43a8452a56388d22c6058abe03e90dadbae9a20a682634568b07a93531dda1a3': { name: 'cbtc', version: '1.0.0' },
  '61ed690af72fda469c2a2df960d81bf59be5ff8d0f4844e816944b5fce267d92': { name: 'cbtc', version: '1.1.0' },
};
