/**
 * The ROS template (docs/ros/iac-code-agui.ros.yaml), checked offline for structure: only resource
 * types and properties the ROS resource reference documents, every Ref and Fn::GetAtt pointing at
 * something defined (and at a documented attribute), every parameter and condition used, secrets
 * only as NoEcho parameters without a default, the state bucket without versioning, the role
 * limited to the thread prefix, the function's logs in a logstore of the stack's own, no empty
 * environment value — and the function kept in step with s.yaml.
 *
 * Documented types, properties and attributes: ROS resource reference pages ALIYUN::FC3::Function,
 * ALIYUN::FC3::Trigger, ALIYUN::OSS::Bucket, ALIYUN::RAM::Role, ALIYUN::SLS::Project,
 * ALIYUN::SLS::Logstore, ALIYUN::SLS::Index (and the ROS CDK's generated classes for them,
 * @alicloud/ros-cdk-fc3 1.11 / -oss 1.12 / -ram 1.12 / -sls); pseudo parameters and Fn::If with
 * ALIYUN::NoValue: ROS "Pseudo parameters", "Fn::If".
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type DeclaredFunction, declaredFunction } from '../../scripts/verify/declared.js';

const ROOT = join(import.meta.dirname, '../..');

type Node = Record<string, unknown>;

const DOCUMENTED: Record<string, { required: string[]; properties: string[]; attributes: string[] }> = {
  'ALIYUN::FC3::Function': {
    required: ['FunctionName', 'Handler', 'Runtime'],
    properties: [
      'FunctionName',
      'Handler',
      'Runtime',
      'Code',
      'Cpu',
      'CustomContainerConfig',
      'CustomDns',
      'CustomRuntimeConfig',
      'Description',
      'DisableOndemand',
      'DiskSize',
      'EnvironmentVariables',
      'GpuConfig',
      'InstanceConcurrency',
      'InstanceIsolationMode',
      'InstanceLifecycleConfig',
      'InternetAccess',
      'Layers',
      'LogConfig',
      'MemorySize',
      'NasConfig',
      'OssMountConfig',
      'Role',
      'SessionAffinity',
      'SessionAffinityConfig',
      'Tags',
      'Timeout',
      'TracingConfig',
      'VpcConfig',
    ],
    attributes: ['ARN', 'FunctionId', 'FunctionName'],
  },
  'ALIYUN::FC3::Trigger': {
    required: ['FunctionName', 'TriggerType', 'TriggerName', 'TriggerConfig'],
    properties: ['FunctionName', 'TriggerType', 'TriggerName', 'TriggerConfig', 'Description', 'InvocationRole', 'Qualifier', 'SourceArn'],
    attributes: ['FunctionName', 'TriggerId', 'TriggerName', 'UrlInternet', 'UrlIntranet'],
  },
  'ALIYUN::OSS::Bucket': {
    required: ['BucketName'],
    properties: [
      'BucketName',
      'AccessControl',
      'BlockPublicAccess',
      'CORSConfiguration',
      'DeletionForce',
      'EnableOssHdfsService',
      'LifecycleConfiguration',
      'LoggingConfiguration',
      'Policy',
      'RedundancyType',
      'RefererConfiguration',
      'ResourceGroupId',
      'ServerSideEncryptionConfiguration',
      'StorageClass',
      'Tags',
      'VersioningConfiguration',
      'WebsiteConfigurationV2',
    ],
    attributes: ['Arn', 'DomainName', 'InternalDomainName', 'Name'],
  },
  'ALIYUN::RAM::Role': {
    required: ['RoleName', 'AssumeRolePolicyDocument'],
    properties: ['RoleName', 'AssumeRolePolicyDocument', 'DeletionForce', 'Description', 'IgnoreExisting', 'MaxSessionDuration', 'Policies', 'PolicyAttachments', 'Tags'],
    attributes: ['Arn', 'RoleId', 'RoleName'],
  },
  'ALIYUN::SLS::Project': {
    required: ['Name'],
    properties: ['Name', 'Description', 'Tags'],
    attributes: ['Name'],
  },
  'ALIYUN::SLS::Logstore': {
    required: ['ProjectName', 'LogstoreName'],
    properties: ['ProjectName', 'ShardCount', 'AutoSplit', 'MaxSplitShard', 'LogstoreName', 'AppendMeta', 'TTL', 'EnableTracking', 'PreserveStorage', 'EncryptConf', 'Mode'],
    attributes: ['LogstoreName', 'ProjectName'],
  },
  'ALIYUN::SLS::Index': {
    required: ['ProjectName', 'LogstoreName', 'FullTextIndex'],
    properties: ['ProjectName', 'LogstoreName', 'FullTextIndex', 'KeyIndices', 'LogReduce', 'LogReduceBlackList', 'LogReduceWhiteList', 'MaxTextLen'],
    attributes: [],
  },
};
const DOCUMENTED_SUBPROPERTIES: Record<string, string[]> = {
  Code: ['SourceCode', 'ZipFile', 'Checksum', 'OssObjectName', 'OssBucketName'],
  CustomRuntimeConfig: ['Args', 'Command', 'Port', 'HealthCheckConfig'],
  HealthCheckConfig: ['TimeoutSeconds', 'InitialDelaySeconds', 'HttpGetUrl', 'PeriodSeconds', 'FailureThreshold', 'SuccessThreshold'],
  InstanceLifecycleConfig: ['PreStop', 'Initializer'],
  LogConfig: ['Project', 'Logstore', 'EnableRequestMetrics', 'EnableInstanceMetrics', 'LogBeginRule'],
  PreStop: ['Timeout', 'Handler'],
  Initializer: ['Timeout', 'Handler'],
};
const PSEUDO_PARAMETERS = ['ALIYUN::StackName', 'ALIYUN::StackId', 'ALIYUN::Region', 'ALIYUN::AccountId', 'ALIYUN::TenantId', 'ALIYUN::ResourceGroupId', 'ALIYUN::NoValue'];
/** The runtime of the template and of s.yaml: Node 22 on custom.debian12 via FC's official layer (docs/deploy.md). */
const NODE22 = { runtime: 'custom.debian12', command: ['/opt/nodejs22/bin/node'], layer: /^acs:fc:\{region\}:official:layers\/Nodejs22\/versions\/\d+$/ };

let template: Node;
let resources: Record<string, Node>;
let parameters: Record<string, Node>;
let sYaml: DeclaredFunction;
let sProps: Node;

function ofType(type: string): Array<[string, Node]> {
  return Object.entries(resources).filter(([, resource]) => resource['Type'] === type);
}

function propertiesOf(type: string): Node {
  const found = ofType(type);
  expect(found, `exactly one ${type}`).toHaveLength(1);
  return (found[0]?.[1]['Properties'] ?? {}) as Node;
}

/** Every {Ref: x} and {Fn::GetAtt: [r, a]} anywhere below `value`. */
function references(value: unknown, found: { refs: string[]; getAtts: Array<[string, string]> } = { refs: [], getAtts: [] }) {
  if (Array.isArray(value)) for (const item of value) references(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.refs.push(inner);
      else if (key === 'Fn::GetAtt' && Array.isArray(inner)) found.getAtts.push([String(inner[0]), String(inner[1])]);
      else references(inner, found);
    }
  }
  return found;
}

/** The branches of every Fn::If anywhere below `value`. */
function ifs(value: unknown, found: Array<[string, unknown, unknown]> = []): Array<[string, unknown, unknown]> {
  if (Array.isArray(value)) for (const item of value) ifs(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Fn::If' && Array.isArray(inner)) found.push(inner as [string, unknown, unknown]);
      ifs(inner, found);
    }
  }
  return found;
}

/** A layer ARN written as Fn::Join over ALIYUN::Region, rendered with `{region}` in its place. */
function renderJoin(value: unknown): string {
  const join = (value as Node)['Fn::Join'] as [string, unknown[]] | undefined;
  if (!join) return String(value);
  return join[1].map((part) => (typeof part === 'string' ? part : (part as Node)['Ref'] === 'ALIYUN::Region' ? '{region}' : `<${JSON.stringify(part)}>`)).join(join[0]);
}

beforeAll(async () => {
  template = parse(await readFile(join(ROOT, 'docs/ros/iac-code-agui.ros.yaml'), 'utf8')) as Node;
  resources = (template['Resources'] ?? {}) as Record<string, Node>;
  parameters = (template['Parameters'] ?? {}) as Record<string, Node>;
  const serverlessYaml = await readFile(join(ROOT, 's.yaml'), 'utf8');
  sYaml = declaredFunction(serverlessYaml, {}, 'cn-hangzhou');
  const document = parse(serverlessYaml) as Node;
  sProps = Object.values(document['resources'] as Record<string, Node>).find((resource) => resource['component'] === 'fc3')?.['props'] as Node;
});

describe('ROS template docs/ros/iac-code-agui.ros.yaml', () => {
  it('is a ROS template whose resources are one function, one HTTP trigger, one bucket, one role and the function’s log project, logstore and index, of documented types and properties', () => {
    expect(template['ROSTemplateFormatVersion']).toBe('2015-09-01');
    expect(
      Object.values(resources)
        .map((resource) => resource['Type'])
        .sort(),
    ).toEqual(['ALIYUN::FC3::Function', 'ALIYUN::FC3::Trigger', 'ALIYUN::OSS::Bucket', 'ALIYUN::RAM::Role', 'ALIYUN::SLS::Index', 'ALIYUN::SLS::Logstore', 'ALIYUN::SLS::Project']);
    for (const [name, resource] of Object.entries(resources)) {
      const spec = DOCUMENTED[String(resource['Type'])];
      expect(spec, `${name}: undocumented type ${String(resource['Type'])}`).toBeDefined();
      const properties = Object.keys((resource['Properties'] ?? {}) as Node);
      for (const property of properties) expect(spec?.properties, `${name}.${property}`).toContain(property);
      for (const required of spec?.required ?? []) expect(properties, `${name} lacks ${required}`).toContain(required);
    }
    const fn = propertiesOf('ALIYUN::FC3::Function');
    for (const [property, allowed] of Object.entries(DOCUMENTED_SUBPROPERTIES)) {
      const node = (fn[property] ??
        ((fn['CustomRuntimeConfig'] as Node | undefined)?.[property] as Node | undefined) ??
        ((fn['InstanceLifecycleConfig'] as Node | undefined)?.[property] as Node | undefined)) as Node | undefined;
      for (const key of Object.keys(node ?? {})) expect(allowed, `Function ${property}.${key}`).toContain(key);
    }
  });

  it('defines every Ref and Fn::GetAtt target (with a documented attribute) and uses every parameter', () => {
    const { refs, getAtts } = references(resources);
    const outputs = references(template['Outputs']);
    for (const ref of [...refs, ...outputs.refs]) expect([...Object.keys(parameters), ...Object.keys(resources), ...PSEUDO_PARAMETERS], `Ref ${ref}`).toContain(ref);
    for (const [resource, attribute] of [...getAtts, ...outputs.getAtts]) {
      expect(Object.keys(resources), `Fn::GetAtt ${resource}`).toContain(resource);
      expect(DOCUMENTED[String(resources[resource]?.['Type'])]?.attributes, `Fn::GetAtt ${resource}.${attribute}`).toContain(attribute);
    }
    for (const parameter of Object.keys(parameters)) expect(refs, `parameter ${parameter} is never used`).toContain(parameter);
    expect(outputs.getAtts).toContainEqual(['HttpTrigger', 'UrlInternet']);
    // Every condition is used by an Fn::If, and every Fn::If names a condition.
    const conditions = Object.keys((template['Conditions'] ?? {}) as Node);
    const used = ifs(resources).map((branches) => branches[0]);
    expect([...new Set(used)].sort()).toEqual(conditions.sort());
  });

  it('sends the function’s logs to a logstore of its own, indexed, so the FC console’s Logs tab and SLS queries work', () => {
    const logConfig = propertiesOf('ALIYUN::FC3::Function')['LogConfig'] as Node;
    expect(logConfig['Project']).toEqual({ 'Fn::GetAtt': ['LogStore', 'ProjectName'] });
    expect(logConfig['Logstore']).toEqual({ 'Fn::GetAtt': ['LogStore', 'LogstoreName'] });
    expect(propertiesOf('ALIYUN::SLS::Logstore')['ProjectName']).toEqual({ 'Fn::GetAtt': ['LogProject', 'Name'] });
    expect(propertiesOf('ALIYUN::SLS::Index')['FullTextIndex']).toEqual({ Enable: true });
    // SLS project names are unique in a region: the stack's id keeps two stacks apart.
    expect(JSON.stringify(propertiesOf('ALIYUN::SLS::Project')['Name'])).toContain('ALIYUN::StackId');
    expect(resources['Function']?.['DependsOn']).toEqual(['LogIndex']);
  });

  it('never sets an empty environment value: an optional one not given is removed (Fn::If with ALIYUN::NoValue), the others are never empty', () => {
    const env = propertiesOf('ALIYUN::FC3::Function')['EnvironmentVariables'] as Node;
    const conditions = (template['Conditions'] ?? {}) as Node;
    for (const [name, value] of Object.entries(env)) {
      expect(value, name).not.toBe('');
      const branches = (value as Node)['Fn::If'] as [string, Node, Node] | undefined;
      if (!branches) continue;
      const [condition, given, otherwise] = branches;
      expect(otherwise, name).toEqual({ Ref: 'ALIYUN::NoValue' });
      // Set exactly when its parameter is not empty.
      expect(conditions[condition], name).toEqual({ 'Fn::Not': [{ 'Fn::Equals': ['', given] }] });
      expect(parameters[String(given['Ref'])], name).toBeDefined();
    }
    expect(
      Object.keys(env)
        .filter((name) => (env[name] as Node)['Fn::If'] !== undefined)
        .sort(),
    ).toEqual(
      [
        'IAC_CODE_AGUI_A2A_ALLOW_INSECURE',
        'IAC_CODE_AGUI_A2A_TOKEN',
        'IAC_CODE_AGUI_ALLOWED_CWDS',
        'IAC_CODE_AGUI_CORS_ORIGINS',
        'IAC_CODE_AGUI_OIDC_ISSUER',
        'IAC_CODE_AGUI_OIDC_AUDIENCE',
        'IAC_CODE_AGUI_OIDC_CLIENTS',
        'IAC_CODE_AGUI_OIDC_USER_CLAIM',
      ].sort(),
    );
    // People may sign in, but the stack's own ROS calls keep the shared token: AuthToken stays required.
    expect(env['IAC_CODE_AGUI_AUTH_TOKEN']).toEqual({ Ref: 'AuthToken' });
  });

  it('documents that its trigger URL is for testing and how to publish a custom domain', () => {
    const output = ((template['Outputs'] as Node)['TriggerUrl'] as Node)['Description'];
    expect(output).toMatch(/testing/);
    expect(output).toMatch(/custom domain/);
    expect(output).toMatch(/TLS 1\.2/);
  });

  it('takes secrets only as NoEcho parameters without a default, and commits no secret value', () => {
    const env = propertiesOf('ALIYUN::FC3::Function')['EnvironmentVariables'] as Node;
    const secretNames = Object.keys(env).filter((name) => /TOKEN|SECRET|PASSWORD|ACCESS_KEY/.test(name));
    expect(secretNames.sort()).toEqual(['IAC_CODE_AGUI_A2A_TOKEN', 'IAC_CODE_AGUI_AUTH_TOKEN']);
    for (const name of secretNames) {
      // As it is, or as the given branch of an Fn::If that leaves an empty one out.
      const value = env[name] as Node | undefined;
      const ref = ((value?.['Fn::If'] as Node[] | undefined)?.[1] ?? value)?.['Ref'];
      expect(typeof ref, `${name} must come from a parameter`).toBe('string');
      const parameter = parameters[String(ref)] ?? {};
      expect(parameter['NoEcho'], `${String(ref)} must be NoEcho`).toBe(true);
      expect(parameter['Default'] ?? '', `${String(ref)} must have no default`).toBe('');
    }
    expect(parameters['AuthToken']?.['Default']).toBeUndefined();
    for (const [name, parameter] of Object.entries(parameters)) {
      expect(String(parameter['Default'] ?? ''), `${name} default`).not.toMatch(/^(LTAI|STS\.)|[0-9a-f]{32,}/i);
    }
  });

  it('creates the state bucket private and never versioned, and a role that may only touch <prefix>/threads/', () => {
    const bucket = propertiesOf('ALIYUN::OSS::Bucket');
    expect(bucket['AccessControl']).toBe('private');
    expect(bucket).not.toHaveProperty('VersioningConfiguration');

    const role = propertiesOf('ALIYUN::RAM::Role');
    const trust = (role['AssumeRolePolicyDocument'] as Node)['Statement'] as Node[];
    expect(trust).toEqual([{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: ['fc.aliyuncs.com'] } }]);
    const statements = (role['Policies'] as Node[]).flatMap((policy) => ((policy['PolicyDocument'] as Node)['Statement'] as Node[]) ?? []);
    expect(statements.flatMap((statement) => statement['Action'] as string[]).sort()).toEqual(['oss:DeleteObject', 'oss:GetObject', 'oss:ListObjects', 'oss:PutObject']);
    expect(role['PolicyAttachments']).toBeUndefined();
    const objectStatement = statements.find((statement) => (statement['Action'] as string[]).includes('oss:GetObject')) as Node;
    const objectResource = JSON.stringify(objectStatement['Resource']);
    // The thread documents and the event journal with its due list (docs/state-store.md "The event journal").
    for (const area of ['threads', 'journal', 'due']) expect(objectResource).toContain(`{"Ref":"StateBucketName"},"/",{"Ref":"StatePrefix"},"/${area}/*"`);
    const listStatement = statements.find((statement) => (statement['Action'] as string[]).includes('oss:ListObjects')) as Node;
    expect(JSON.stringify(listStatement['Condition'])).toContain(
      '"oss:Prefix":[{"Fn::Join":["",[{"Ref":"StatePrefix"},"/threads/*"]]},{"Fn::Join":["",[{"Ref":"StatePrefix"},"/journal/*"]]},{"Fn::Join":["",[{"Ref":"StatePrefix"},"/due/*"]]}]',
    );
  });

  it('runs the function as s.yaml does: port, timeout, sizes, start arguments, environment names, anonymous trigger and its methods', () => {
    const fn = propertiesOf('ALIYUN::FC3::Function');
    const runtimeConfig = fn['CustomRuntimeConfig'] as Node;
    expect(runtimeConfig['Port']).toBe(sYaml.port);
    expect(fn['Timeout']).toBe(sYaml.timeout);
    expect(fn['Timeout']).toBeGreaterThan(3);
    expect(runtimeConfig['Args']).toEqual(sYaml.args);
    for (const [ros, serverless] of [
      ['Cpu', 'cpu'],
      ['MemorySize', 'memorySize'],
      ['DiskSize', 'diskSize'],
      ['InstanceConcurrency', 'instanceConcurrency'],
      ['InternetAccess', 'internetAccess'],
    ] as const) {
      expect(fn[ros], ros).toEqual(sProps[serverless]);
    }
    // Every variable s.yaml always sets; of the optional ones, those the template takes a parameter for.
    const names = Object.keys(fn['EnvironmentVariables'] as Node);
    expect(names).toEqual(expect.arrayContaining(sYaml.requiredEnv));
    for (const name of names) expect([...sYaml.requiredEnv, ...sYaml.optionalEnv], name).toContain(name);
    expect(Object.keys(resources)).toContain('FunctionRole');
    expect(fn['Role']).toEqual({ 'Fn::GetAtt': ['FunctionRole', 'Arn'] });

    const trigger = propertiesOf('ALIYUN::FC3::Trigger');
    expect(trigger['TriggerType']).toBe('http');
    expect(trigger['FunctionName']).toEqual({ 'Fn::GetAtt': ['Function', 'FunctionName'] });
    const config = trigger['TriggerConfig'] as Node;
    expect(config['authType']).toBe(sYaml.trigger?.authType);
    expect([...(config['methods'] as string[])].sort()).toEqual([...(sYaml.trigger?.methods ?? [])].sort());
    // Lifecycle hook and health check: present exactly when s.yaml configures them, with its values.
    const lifecycle = (fn['InstanceLifecycleConfig'] ?? {}) as Node;
    expect((lifecycle['PreStop'] as Node | undefined)?.['Timeout']).toBe(sYaml.preStop?.timeout);
    expect(((runtimeConfig['HealthCheckConfig'] ?? {}) as Node)['HttpGetUrl']).toBe(sYaml.healthCheckUrl);
  });

  it('runs Node.js 22 on custom.debian12 from the official Nodejs22 layer, with the same start command and layer as s.yaml', () => {
    const fn = propertiesOf('ALIYUN::FC3::Function');
    const command = (fn['CustomRuntimeConfig'] as Node)['Command'];
    const layers = (fn['Layers'] as unknown[]).map(renderJoin);
    expect(fn['Runtime']).toBe(NODE22.runtime);
    expect(fn['Runtime']).toBe(sYaml.runtime);
    expect(command).toEqual(NODE22.command);
    expect(command).toEqual(sYaml.command);
    expect(layers).toHaveLength(1);
    expect(layers[0]).toMatch(NODE22.layer);
    expect(layers).toEqual(sYaml.layers.map((layer) => layer.replace('cn-hangzhou', '{region}')));
    // fc3 and FC keep a PreStop hook only when it names a handler (a custom runtime ignores it).
    expect(((fn['InstanceLifecycleConfig'] as Node)['PreStop'] as Node)['Handler']).toEqual(expect.any(String));
  });
});
