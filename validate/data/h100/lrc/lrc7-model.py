"""The model's side of lrc7 part B: L2 reads (lts__t_sectors_op_read) and cycles of the bundled
GEMMs at the probe's sub-grids, one column pair per warpsim binary given. Manifests (the
suite's, grid replaced, [check] dropped: a sub-grid computes part of C) go to a temporary
directory. Usage: python3 lrc7-model.py BIN [BIN...] > lrc7-model.csv (WARPSIM_CUDA=none)."""
import re,os,subprocess,json,sys,tempfile
root=os.path.join(os.path.dirname(os.path.abspath(__file__)),'../../../../workloads/suite')
tmp=tempfile.mkdtemp()
cases={'mma_gemm':('mma_gemm/mma_gemm.toml',[(1,1),(4,1),(1,4),(2,2),(4,4)]),
 'cpasync_gemm':('cpasync_gemm/cpasync_gemm.toml',[(1,1),(4,1),(1,4),(2,2),(4,4)]),
 'matmul_tiled32':('matmul/matmul_tiled32.toml',[(1,1),(8,1),(1,8),(2,2),(4,4),(8,8)]),
 'matmul_naive':('matmul/matmul_naive.toml',[(1,1),(16,1),(1,16),(4,4),(16,16)])}
bins=sys.argv[1:]
print("kernel,gx,gy,"+",".join(f"{os.path.basename(b)}_reads,{os.path.basename(b)}_cycles" for b in bins))
for k,(f,grids) in cases.items():
    src=open(os.path.join(root,f)).read()
    d=os.path.dirname(os.path.join(root,f))
    src=src.split('[check]')[0]
    src=re.sub(r'^ptx = "(.*)"',lambda m:f'ptx = "{d}/{m.group(1)}"',src,flags=re.M)
    for gx,gy in grids:
        t=re.sub(r'^grid = .*',f'grid = [{gx}, {gy}, 1]',src,flags=re.M)
        p=f'{tmp}/{k}_{gx}x{gy}.toml'; open(p,'w').write(t)
        row=[k,str(gx),str(gy)]
        for b in bins:
            r=subprocess.run([b,'run','--json',p],capture_output=True,text=True,env=dict(os.environ,WARPSIM_CUDA='none'))
            if r.returncode:
                row+=['ERR:'+r.stderr[-200:].replace('\n',' '),'']
                continue
            j=json.loads(r.stdout)
            row+=[str(j['counters']['lts__t_sectors_op_read.sum']), str(j['cycles'])]
        print(",".join(row),flush=True)
