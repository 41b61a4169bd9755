# even and odd round trips of a pingpong -trace CSV: python3 eo.py TRACE.csv
import csv,statistics as st,sys
rows=list(csv.reader(open(sys.argv[1])))[1:]
for m in sorted(set(r[0] for r in rows)):
    v=[(int(r[2]),float(r[3])) for r in rows if r[0]==m]
    ev=[x for i,x in v if i%2==0]; od=[x for i,x in v if i%2==1]
    print(m, 'even %.2f odd %.2f all %.2f'%(st.median(ev), st.median(od), st.median([x for i,x in v])))
