/**
 * The optional production domain (s.domain.yaml, docs/deploy.md "A production domain"), rendered by
 * the real Serverless Devs CLI: s.domain.yaml is s.yaml's function plus one fc3-domain resource —
 * HTTPS with the deployer's certificate, every path routed to the function for GET, HEAD, POST and
 * OPTIONS — and `npm run deploy` picks it only when IAC_CODE_AGUI_DOMAIN_NAME is set, so without the
 * variable no domain resource is rendered.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../scripts/build.js';
import { deployCommand, deployTemplate } from '../../scripts/fc/deploy-command.js';
import { renderServerlessYaml } from '../../scripts/fc/render-s-yaml.js';

const FUNCTION_ENV = {
  IAC_CODE_AGUI_FC_REGION: 'cn-shanghai',
  IAC_CODE_AGUI_FC_FUNCTION_NAME: 'agui-prod',
  IAC_CODE_AGUI_FC_ROLE_ARN: 'acs:ram::1234567890123456:role/agui-oss-role',
  IAC_CODE_AGUI_A2A_URL: 'https://kernel.example.test/',
  IAC_CODE_AGUI_AUTH_TOKEN: 'auth-token-value',
  IAC_CODE_AGUI_OSS_BUCKET: 'agui-state-bucket',
};
const DOMAIN_ENV = {
  IAC_CODE_AGUI_DOMAIN_NAME: 'agui.example.com',
  IAC_CODE_AGUI_DOMAIN_CERT: '/secure/agui.example.com.pem',
  IAC_CODE_AGUI_DOMAIN_KEY: '/secure/agui.example.com.key',
};

type Resource = { component: string; props: Record<string, unknown> };
let plain: Record<string, Resource>;
let withDomain: Record<string, Resource>;

beforeAll(async () => {
  const [a, b] = await Promise.all([
    renderServerlessYaml({ ...FUNCTION_ENV, ...DOMAIN_ENV }),
    renderServerlessYaml({ ...FUNCTION_ENV, ...DOMAIN_ENV }, { template: 's.domain.yaml' }),
  ]);
  plain = a['resources'] as Record<string, Resource>;
  withDomain = b['resources'] as Record<string, Resource>;
}, 60_000);

describe('the custom domain', () => {
  it('is not in s.yaml, whatever the environment says', () => {
    expect(Object.values(plain).map((resource) => resource.component)).toEqual(['fc3']);
  });

  it('is one fc3-domain resource in s.domain.yaml: HTTPS with the deployer’s certificate, every path to the function', () => {
    expect(Object.keys(withDomain)).toEqual(['agui', 'domain']);
    expect(withDomain['agui']).toEqual(plain['agui']);
    expect(withDomain['domain']).toEqual({
      component: 'fc3-domain',
      props: {
        region: 'cn-shanghai',
        domainName: 'agui.example.com',
        protocol: 'HTTPS',
        tlsConfig: expect.objectContaining({ minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' }),
        certConfig: { certName: 'iac-code-agui', certificate: DOMAIN_ENV.IAC_CODE_AGUI_DOMAIN_CERT, privateKey: DOMAIN_ENV.IAC_CODE_AGUI_DOMAIN_KEY },
        routeConfig: { routes: [{ functionName: 'agui-prod', path: '/*', methods: ['GET', 'HEAD', 'POST', 'OPTIONS'], qualifier: 'LATEST' }] },
      },
    });
  });

  it('pins TLS 1.2 as the minimum (the component defaults to TLS 1.0), with forward-secret AEAD suites only', () => {
    const tls = withDomain['domain']?.props['tlsConfig'] as { minVersion: string; maxVersion: string; cipherSuites: string[] };
    expect(tls.minVersion).toBe('TLSv1.2');
    expect(tls.maxVersion).toBe('TLSv1.3');
    expect(tls.cipherSuites.length).toBeGreaterThan(0);
    for (const suite of tls.cipherSuites) expect(suite).toMatch(/^TLS_ECDHE_(ECDSA|RSA)_WITH_(AES_128_GCM_SHA256|AES_256_GCM_SHA384|CHACHA20_POLY1305)$/);
  });

  it('refuses to render without its certificate', async () => {
    const { IAC_CODE_AGUI_DOMAIN_KEY: _key, ...withoutKey } = DOMAIN_ENV;
    await expect(renderServerlessYaml({ ...FUNCTION_ENV, ...withoutKey }, { template: 's.domain.yaml' })).rejects.toThrow(/IAC_CODE_AGUI_DOMAIN_KEY/);
  }, 60_000);

  it('is deployed by `npm run deploy` exactly when IAC_CODE_AGUI_DOMAIN_NAME is set', () => {
    expect(deployTemplate({})).toBe('s.yaml');
    expect(deployTemplate({ IAC_CODE_AGUI_DOMAIN_NAME: '' })).toBe('s.yaml');
    expect(deployTemplate(DOMAIN_ENV)).toBe('s.domain.yaml');
    expect(deployCommand(DOMAIN_ENV, PROJECT_ROOT, ['-a', 'prod'])).toEqual([`${PROJECT_ROOT}/node_modules/.bin/s`, 'deploy', '-y', '-t', 's.domain.yaml', '-a', 'prod']);
    expect(deployCommand({}, PROJECT_ROOT)).toEqual([`${PROJECT_ROOT}/node_modules/.bin/s`, 'deploy', '-y', '-t', 's.yaml']);
  });
});
