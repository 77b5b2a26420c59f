// The heading ids the real sites' own toolchain gives their pages: @mdx-js/mdx with
// remark-gfm, remark-math and rehype-slug (github-slugger), as jarv.is and timlrx.com build
// them. Writes tests/data/real_site_heading_ids.json, the oracle of tests/test_routes.py.
//   npm install @mdx-js/mdx rehype-slug remark-gfm remark-math remark-frontmatter unist-util-visit
//   node scripts/heading_ids.mjs ../shared/data/sites > tests/data/real_site_heading_ids.json
import {compile} from '@mdx-js/mdx'
import rehypeSlug from 'rehype-slug'
import remarkFrontmatter from 'remark-frontmatter'
import remarkGfm from 'remark-gfm'
import remarkMath from 'remark-math'
import {visit} from 'unist-util-visit'
import fs from 'fs'
import path from 'path'

const root = process.argv[2]
const out = {}
for (const site of ['jarvis', 'timlrx']) {
  const files = fs.readdirSync(path.join(root, site), {recursive: true}).filter((f) => f.endsWith('.mdx')).sort()
  for (const file of files) {
    const ids = []
    const collect = () => (tree) => {
      visit(tree, 'element', (node) => {
        if (/^h[1-6]$/.test(node.tagName) && node.properties?.id) ids.push(node.properties.id)
      })
    }
    const source = fs.readFileSync(path.join(root, site, file), 'utf8')
    await compile(source, {
      remarkPlugins: [remarkFrontmatter, remarkGfm, remarkMath],
      rehypePlugins: [rehypeSlug, collect],
    })
    out[`${site}/${file}`] = ids
  }
}
console.log(JSON.stringify(out, null, 1))
