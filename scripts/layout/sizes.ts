/** Rules 3 and 4: no function over MAX_FUNCTION_LINES, no interface or object type over MAX_TYPE_MEMBERS members. */
import ts from 'typescript';
import { lineOf, MAX_FUNCTION_LINES, MAX_TYPE_MEMBERS, type ParsedFile, type Violation } from './source-files.ts';

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction;

function isFunctionNode(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node)
  );
}

/** The name a reader would search for: its own, its class's member name, or what it is assigned to. */
export function functionName(node: FunctionNode, source: ts.SourceFile): string {
  const owner = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : '';
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  const prefix = ts.isGetAccessorDeclaration(node) ? 'get ' : ts.isSetAccessorDeclaration(node) ? 'set ' : '';
  if (!ts.isArrowFunction(node) && node.name) return `${prefix}${owner}${node.name.getText(source)}`;
  let holder: ts.Node = node.parent;
  while (ts.isParenthesizedExpression(holder) || ts.isAsExpression(holder) || ts.isSatisfiesExpression(holder)) holder = holder.parent;
  if (ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder) || ts.isPropertyDeclaration(holder)) {
    const classOwner = ts.isPropertyDeclaration(holder) && ts.isClassLike(holder.parent) && holder.parent.name ? `${holder.parent.name.text}.` : '';
    return `${classOwner}${holder.name.getText(source)}`;
  }
  if (ts.isBinaryExpression(holder) && holder.operatorToken.kind === ts.SyntaxKind.EqualsToken) return holder.left.getText(source);
  return '<anonymous>';
}

export function checkFunctionLengths(file: ParsedFile): { violations: Violation[]; functions: number } {
  const { source } = file;
  const violations: Violation[] = [];
  let functions = 0;
  const visit = (node: ts.Node): void => {
    if (isFunctionNode(node)) {
      functions++;
      const first = lineOf(source, node);
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        violations.push({ file: file.path, line: first, message: `function ${functionName(node, source)} is ${lines} lines (max ${MAX_FUNCTION_LINES})` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { violations, functions };
}

// ---- Rule 4: no interface or object type over MAX_TYPE_MEMBERS members ----

function typeLiteralName(node: ts.TypeLiteralNode): string {
  if (ts.isTypeAliasDeclaration(node.parent)) return `type ${node.parent.name.text}`;
  for (let up: ts.Node = node.parent; !ts.isSourceFile(up); up = up.parent) {
    if (ts.isTypeAliasDeclaration(up)) return `object type literal in type ${up.name.text}`;
    if (ts.isInterfaceDeclaration(up)) return `object type literal in interface ${up.name.text}`;
  }
  return 'object type literal';
}

export function checkTypeSizes(file: ParsedFile): { violations: Violation[]; typeShapes: number } {
  const { source } = file;
  const violations: Violation[] = [];
  let typeShapes = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      typeShapes++;
      if (node.members.length > MAX_TYPE_MEMBERS) {
        const name = ts.isInterfaceDeclaration(node) ? `interface ${node.name.text}` : typeLiteralName(node);
        violations.push({ file: file.path, line: lineOf(source, node), message: `${name} has ${node.members.length} members (max ${MAX_TYPE_MEMBERS})` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { violations, typeShapes };
}
